#include "core/base/BoundedJson.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/PlanError.h"

namespace trainplan {

using nlohmann::json;

namespace {

// Reads the text one byte at a time for nlohmann's lexer and leaves where it is in `cursor`,
// so the builder knows where a key it is handed ends (nlohmann's SAX callbacks get no
// position; only its errors do).
class CursorIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    CursorIterator(const char* at, const char** cursor) : at_(at), cursor_(cursor) {}
    reference operator*() const { return *at_; }
    CursorIterator& operator++()
    {
        *cursor_ = ++at_;
        return *this;
    }
    CursorIterator operator++(int)
    {
        CursorIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const CursorIterator& other) const { return at_ == other.at_; }

private:
    const char* at_;
    const char** cursor_;
};

// nlohmann's SAX interface, building the same document its DOM parser would, while keeping
// the depth and the path of the value being read. A key given twice in one object is an
// error (nlohmann's DOM parser silently keeps the last value).
class BoundedDomBuilder {
public:
    BoundedDomBuilder(size_t maxDepth, const char* const* cursor) : maxDepth_(maxDepth), cursor_(cursor) {}

    bool null() { return put(json(nullptr)); }
    bool boolean(bool v) { return put(json(v)); }
    bool number_integer(json::number_integer_t v) { return put(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
    bool number_float(json::number_float_t v, const json::string_t&) { return put(json(v)); }
    bool string(json::string_t& v) { return put(json(std::move(v))); }
    bool binary(json::binary_t& v) { return put(json(json::binary_t(std::move(v)))); }

    bool start_object(size_t) { return open(json::object()); }
    bool start_array(size_t) { return open(json::array()); }
    bool key(json::string_t& k)
    {
        // One lookup: the key's slot is made here and filled by the value that follows.
        Level& top = levels_.back();
        auto [it, inserted] = top.node->get_ref<json::object_t&>().emplace(std::move(k), nullptr);
        top.key = &it->first;
        top.value = &it->second;
        if (!inserted) {
            duplicateEnd_ = *cursor_;  // just past the closing quote of the second one
            return false;
        }
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception& ex)
    {
        errorPosition_ = position;
        errorId_ = ex.id;
        errorText_ = ex.what();
        return false;
    }

    json& root() { return root_; }
    bool tooDeep() const { return tooDeep_; }
    // Where the text of a key given twice ends, or nullptr.
    const char* duplicateEnd() const { return duplicateEnd_; }
    int errorId() const { return errorId_; }
    size_t errorPosition() const { return errorPosition_; }
    const std::string& errorText() const { return errorText_; }
    // True when the parser stopped between an object's values: at a key, or where one could be.
    bool betweenKeys() const { return !levels_.empty() && levels_.back().node->is_object() && !levels_.back().key; }
    // The key being read or (when duplicateEnd) given twice; only while one is.
    const std::string* currentKey() const { return levels_.empty() ? nullptr : levels_.back().key; }
    // "training.tokens", "layout.stage_layers[2]": where the parser is now. Between an
    // object's values (a key being read), the object itself.
    std::string path() const { return pathOf(levels_.size()); }
    // The path of the object or array the parser is in ("" at the top).
    std::string parentPath() const { return pathOf(levels_.empty() ? 0 : levels_.size() - 1); }

private:
    struct Level {
        json* node;
        const std::string* key = nullptr;  // object: the key whose value is being read, else nullptr
        json* value = nullptr;             // object: that key's slot
    };

    std::string pathOf(size_t depth) const
    {
        std::string p;
        for (size_t i = 0; i < depth; ++i) {
            const Level& l = levels_[i];
            // An array's open child is its last element; at the innermost level the value
            // being read is the next one.
            const bool innermost = i + 1 == levels_.size();
            if (l.node->is_array())
                p += "[" + std::to_string(innermost ? l.node->size() : l.node->size() - 1) + "]";
            else if (l.key)
                p += (p.empty() ? "" : ".") + *l.key;
        }
        return p;
    }

    json* slot()
    {
        if (levels_.empty())
            return &root_;
        Level& top = levels_.back();
        if (top.node->is_array()) {
            top.node->push_back(nullptr);
            return &top.node->back();
        }
        return top.value;
    }
    // The value in the innermost object is complete: the next thing there is a key or '}'.
    void valueDone()
    {
        if (!levels_.empty())
            levels_.back().key = nullptr;
    }
    bool put(json&& v)
    {
        *slot() = std::move(v);
        valueDone();
        return true;
    }
    bool open(json&& container)
    {
        if (levels_.size() >= maxDepth_) {
            tooDeep_ = true;
            return false;
        }
        json* s = slot();
        *s = std::move(container);
        levels_.push_back({s});
        return true;
    }
    bool close()
    {
        levels_.pop_back();
        valueDone();
        return true;
    }

    size_t maxDepth_;
    const char* const* cursor_;
    json root_;
    std::vector<Level> levels_;
    bool tooDeep_ = false;
    const char* duplicateEnd_ = nullptr;
    int errorId_ = 0;
    size_t errorPosition_ = 0;
    std::string errorText_;
};

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629 section 4, the UTF8-octets
// grammar: no overlong forms, surrogates or code points past U+10FFFF), or 0.
size_t utf8SequenceLength(const unsigned char* s, size_t n, size_t i)
{
    const unsigned char c = s[i];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;  // no UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;  // nothing past U+10FFFF
    } else {
        return 0;
    }
    if (i + len > n)
        return 0;
    if (s[i + 1] < lo || s[i + 1] > hi)
        return 0;
    for (size_t k = 2; k < len; ++k)
        if (s[i + k] < 0x80 || s[i + k] > 0xBF)
            return 0;
    return len;
}

// nlohmann quotes the bytes it last read in its messages, ill-formed ones included; a message
// is text, so each byte that is not part of a well-formed character becomes '?'.
std::string wellFormed(const std::string& bytes)
{
    if (isValidUtf8(bytes))
        return bytes;
    const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
    std::string out;
    for (size_t i = 0; i < bytes.size();) {
        const size_t len = utf8SequenceLength(s, bytes.size(), i);
        if (len == 0) {
            out += '?';
            ++i;
        } else {
            out.append(bytes, i, len);
            i += len;
        }
    }
    return out;
}

// The opening quote of the string whose text runs up to `end` (inside it, or just past its
// closing quote): the nearest quote before it that no backslash escapes.
size_t openingQuote(const std::string& text, size_t end)
{
    size_t at = std::min(end, text.size());
    if (at > 0 && text[at - 1] == '"')
        --at;  // the closing quote itself
    while (at > 0) {
        --at;
        if (text[at] != '"')
            continue;
        size_t backslashes = 0;
        while (backslashes < at && text[at - 1 - backslashes] == '\\')
            ++backslashes;
        if (backslashes % 2 == 0)
            return at;
    }
    return 0;
}

// Where an object is, for a message: "in layout", "at the top level".
std::string inObject(const std::string& path)
{
    return path.empty() ? std::string("at the top level") : "in " + path;
}

std::string lineAndColumn(const std::string& text, size_t position)
{
    position = std::min(position, text.size());
    size_t line = 1, column = 1;
    for (size_t i = 0; i < position; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

BoundedJsonResult tryParseJsonBounded(const std::string& text, const std::string& what, size_t maxDepth)
{
    using Status = BoundedJsonResult::Status;
    BoundedJsonResult result;
    const char* cursor = text.data();
    BoundedDomBuilder builder(maxDepth, &cursor);
    bool ok = false;
    try {
        const char* end = text.data() + text.size();
        ok = json::sax_parse(CursorIterator(text.data(), &cursor), CursorIterator(end, &cursor), &builder);
    } catch (const json::exception& e) {
        result.status = Status::SyntaxError;
        result.message = what + " is not valid JSON: " + wellFormed(e.what());
        return result;
    }
    if (ok) {
        result.value = std::move(builder.root());
        return result;
    }
    result.path = builder.path();
    if (builder.tooDeep()) {
        result.status = Status::TooDeep;
        result.message =
            what + " nests deeper than " + std::to_string(maxDepth) + " levels (a plan is four levels deep); refusing to read it";
        return result;
    }
    if (const char* end = builder.duplicateEnd()) {
        const std::string& key = *builder.currentKey();
        std::string shown = json(key).dump();
        if (shown.size() > 40)
            shown = wellFormed(shown.substr(0, 36)) + "...\"";
        result.status = Status::DuplicateKey;
        result.message = shown + " appears twice " + inObject(builder.parentPath()) + " (" + what + " " +
                         lineAndColumn(text, openingQuote(text, size_t(end - text.data()))) + "); each key may be given only once";
        return result;
    }
    // out_of_range.406: a number the lexer read as infinite, e.g. 1e400.
    if (builder.errorId() == 406) {
        const std::string& t = builder.errorText();
        const auto quote = t.find('\'');
        const std::string literal = quote == std::string::npos ? std::string("number") : t.substr(quote + 1, t.rfind('\'') - quote - 1);
        result.status = Status::NumberOutOfRange;
        result.message = literal + " is outside the range of a double-precision number (" + what + " " +
                         lineAndColumn(text, builder.errorPosition() - std::min(builder.errorPosition(), literal.size())) + ")";
        return result;
    }
    result.status = Status::SyntaxError;
    // A key that is not UTF-8: its object is the path (the key has no name to give), and the
    // position is where the key starts.
    if (builder.betweenKeys() && builder.errorText().find("ill-formed UTF-8") != std::string::npos) {
        result.message = what + " is not valid JSON: parse error at " + lineAndColumn(text, openingQuote(text, builder.errorPosition()))
            + ": a key " + inObject(builder.path()) + " is not valid UTF-8";
        return result;
    }
    std::string message = builder.errorText();
    const auto at = message.find("parse error");
    if (at != std::string::npos)
        message = message.substr(at);
    else
        message = lineAndColumn(text, builder.errorPosition()) + ": " + message;
    result.message = what + " is not valid JSON: " + wellFormed(message);
    return result;
}

json parseJsonBounded(const std::string& text, const std::string& what, size_t maxDepth)
{
    BoundedJsonResult r = tryParseJsonBounded(text, what, maxDepth);
    if (r.status != BoundedJsonResult::Status::Ok)
        throw PlanError({{r.path, r.message}});
    return std::move(r.value);
}

bool isValidUtf8(const std::string& bytes)
{
    const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
    const size_t n = bytes.size();
    for (size_t i = 0; i < n;) {
        const size_t len = utf8SequenceLength(s, n, i);
        if (len == 0)
            return false;
        i += len;
    }
    return true;
}

}  // namespace trainplan
