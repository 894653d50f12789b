#include "plan/BoundedJson.h"

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/PlanError.h"

namespace trainplan {

using nlohmann::json;

namespace {

// nlohmann's SAX interface, building the same document its DOM parser would, while keeping
// the depth and the path of the value being read.
class BoundedDomBuilder {
public:
    explicit BoundedDomBuilder(size_t maxDepth) : maxDepth_(maxDepth) {}

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
        levels_.back().key = k;
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
    int errorId() const { return errorId_; }
    size_t errorPosition() const { return errorPosition_; }
    const std::string& errorText() const { return errorText_; }
    // "training.tokens", "layout.stage_layers[2]": where the parser is now.
    std::string path() const
    {
        std::string p;
        for (size_t i = 0; i < levels_.size(); ++i) {
            const Level& l = levels_[i];
            // An array's open child is its last element; at the innermost level the value
            // being read is the next one.
            const bool innermost = i + 1 == levels_.size();
            if (l.node->is_array())
                p += "[" + std::to_string(innermost ? l.node->size() : l.node->size() - 1) + "]";
            else if (!l.key.empty() || l.node->is_object())
                p += (p.empty() ? "" : ".") + l.key;
        }
        return p;
    }

private:
    struct Level {
        json* node;
        std::string key;  // object: the key whose value comes next
    };

    json* slot()
    {
        if (levels_.empty())
            return &root_;
        Level& top = levels_.back();
        if (top.node->is_array()) {
            top.node->push_back(nullptr);
            return &top.node->back();
        }
        return &(*top.node)[top.key];
    }
    bool put(json&& v)
    {
        *slot() = std::move(v);
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
        levels_.push_back({s, {}});
        return true;
    }
    bool close()
    {
        levels_.pop_back();
        return true;
    }

    size_t maxDepth_;
    json root_;
    std::vector<Level> levels_;
    bool tooDeep_ = false;
    int errorId_ = 0;
    size_t errorPosition_ = 0;
    std::string errorText_;
};

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
    BoundedDomBuilder builder(maxDepth);
    bool ok = false;
    try {
        ok = json::sax_parse(text, &builder);
    } catch (const json::exception& e) {
        result.status = Status::SyntaxError;
        result.message = what + " is not valid JSON: " + e.what();
        return result;
    }
    if (ok) {
        result.value = std::move(builder.root());
        return result;
    }
    result.path = builder.path();
    if (builder.tooDeep()) {
        result.status = Status::TooDeep;
        result.message = what + " nests deeper than " + std::to_string(maxDepth) + " levels (a plan is four levels deep); refusing to read it";
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
    std::string message = builder.errorText();
    const auto at = message.find("parse error");
    if (at != std::string::npos)
        message = message.substr(at);
    else
        message = lineAndColumn(text, builder.errorPosition()) + ": " + message;
    result.status = Status::SyntaxError;
    result.message = what + " is not valid JSON: " + message;
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
    // RFC 3629 section 4 (the UTF8-octets grammar).
    const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
    const size_t n = bytes.size();
    size_t i = 0;
    while (i < n) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
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
            return false;
        }
        if (i + len > n)
            return false;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return false;
        for (size_t k = 2; k < len; ++k)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return false;
        i += len;
    }
    return true;
}

}  // namespace trainplan
