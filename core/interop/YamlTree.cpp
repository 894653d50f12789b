#include "core/interop/YamlTree.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/base/PlanError.h"

namespace trainplan {

namespace {

using nlohmann::json;

// Mappings, sequences and flow collections inside one another: configs nest four or five deep;
// the bound keeps the recursion (one frame per level) far from the stack's end on any input.
constexpr int kMaxDepth = 32;

[[noreturn]] void fail(int line, const std::string& why)
{
    throw PlanError({PlanProblem{"line " + std::to_string(line), why}});
}

// A line that holds something: its indentation in spaces and its text without the indentation,
// the comment or trailing blanks.
struct Line {
    int number = 0;
    int indent = 0;
    std::string text;
};

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

// What a quote needs before it to open a quoted value: "it's" is a plain word, "'it'" is quoted.
bool opensQuote(const std::string& s, size_t at)
{
    return at == 0 || std::strchr(" \t[{,", s[at - 1]) != nullptr;
}

std::string trimRight(std::string s)
{
    while (!s.empty() && (isBlank(s.back()) || s.back() == '\r'))
        s.pop_back();
    return s;
}

std::string clip(const std::string& s)
{
    return s.substr(0, 40);
}

// The lines that hold something, comments cut off. Tabs may not indent (YAML forbids them there).
std::vector<Line> contentLines(std::string_view text)
{
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    std::vector<Line> lines;
    bool ended = false;  // after "...", the end of the document
    int number = 0;
    size_t from = 0;
    while (from <= text.size()) {
        size_t to = text.find('\n', from);
        if (to == std::string_view::npos)
            to = text.size();
        const std::string raw(text.substr(from, to - from));
        from = to + 1;
        ++number;
        size_t indent = 0;
        while (indent < raw.size() && raw[indent] == ' ')
            ++indent;
        std::string content = raw.substr(indent);
        // Cut the comment: a '#' at the start or after a blank, outside quotes.
        char quote = 0;
        for (size_t j = 0; j < content.size(); ++j) {
            const char c = content[j];
            if (quote) {
                if (quote == '"' && c == '\\')
                    ++j;
                else if (c == quote && quote == '\'' && j + 1 < content.size() && content[j + 1] == '\'')
                    ++j;
                else if (c == quote)
                    quote = 0;
            } else if ((c == '"' || c == '\'') && opensQuote(content, j)) {
                quote = c;
            } else if (c == '#' && (j == 0 || isBlank(content[j - 1]))) {
                content.resize(j);
                break;
            }
        }
        content = trimRight(content);
        if (content.empty() || content.find_first_not_of(" \t") == std::string::npos)
            continue;
        if (quote)
            fail(number, "a quoted string is not closed on its line (multi-line strings are not read)");
        if (content[0] == '\t')
            fail(number, "a tab indents this line: YAML indents with spaces");
        if (ended)
            fail(number, "text after the end of the document (\"...\"): one document is read");
        if (indent == 0 && (content == "---" || content.rfind("--- ", 0) == 0)) {
            if (!lines.empty() || content != "---")
                fail(number, "several documents, or a value on the \"---\" line, are not read");
            continue;
        }
        if (indent == 0 && content == "...") {
            ended = true;
            continue;
        }
        if (indent == 0 && content[0] == '%')
            fail(number, "directives (%YAML, %TAG) are not read");
        lines.push_back({number, int(indent), content});
    }
    return lines;
}

bool isSequenceItem(const std::string& text)
{
    return text == "-" || (text.size() > 1 && text[0] == '-' && isBlank(text[1]));
}

// A quoted string starting at s[i] (a double-quoted one with its escapes); i moves past it.
std::string quoted(const std::string& s, size_t& i, int line)
{
    const char quote = s[i++];
    std::string out;
    while (true) {
        if (i >= s.size())
            fail(line, "a quoted string is not closed on its line");
        const char c = s[i++];
        if (c == quote) {
            if (quote == '\'' && i < s.size() && s[i] == '\'') {
                out += '\'';
                ++i;
                continue;
            }
            return out;
        }
        if (c != '\\' || quote == '\'') {
            out += c;
            continue;
        }
        if (i >= s.size())
            fail(line, "a string ends in a backslash");
        const char e = s[i++];
        switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case '0': out += '\0'; break;
        case ' ': out += ' '; break;
        case 'u': {
            unsigned code = 0;
            const auto [end, ec] = std::from_chars(s.data() + i, s.data() + std::min(s.size(), i + 4), code, 16);
            if (ec != std::errc() || end != s.data() + i + 4 || (code >= 0xD800 && code <= 0xDFFF))
                fail(line, "a \\u escape needs four hex digits of a character");
            i += 4;
            if (code < 0x80) {
                out += char(code);
            } else if (code < 0x800) {
                out += char(0xC0 | (code >> 6));
                out += char(0x80 | (code & 0x3F));
            } else {
                out += char(0xE0 | (code >> 12));
                out += char(0x80 | ((code >> 6) & 0x3F));
                out += char(0x80 | (code & 0x3F));
            }
            break;
        }
        default: fail(line, std::string("unknown escape \\") + e);
        }
    }
}

// A plain scalar as the YAML 1.2 core schema resolves it: null, a boolean, an integer (decimal,
// 0x, 0o), a float (1e-4, .5, .inf, .nan), else the string itself.
json plainScalar(const std::string& word, int line)
{
    if (word == "~" || word == "null" || word == "Null" || word == "NULL")
        return nullptr;
    if (word == "true" || word == "True" || word == "TRUE")
        return true;
    if (word == "false" || word == "False" || word == "FALSE")
        return false;
    std::string_view body = word;
    bool negative = false;
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
        negative = body[0] == '-';
        body.remove_prefix(1);
    }
    if (body == ".inf" || body == ".Inf" || body == ".INF")
        return negative ? -INFINITY : INFINITY;
    if (word == ".nan" || word == ".NaN" || word == ".NAN")
        return NAN;
    if (body.empty())
        return word;
    const auto digits = [](std::string_view s, const char* set) { return !s.empty() && s.find_first_not_of(set) == std::string_view::npos; };
    int base = 0;
    if (digits(body, "0123456789"))
        base = 10;
    else if (word[0] != '-' && word[0] != '+' && body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o')) {
        base = body[1] == 'x' ? 16 : 8;
        body.remove_prefix(2);
        if (!digits(body, base == 16 ? "0123456789abcdefABCDEF" : "01234567"))
            return word;
    }
    if (base) {
        long long value = 0;
        const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value, base);
        if (ec == std::errc::result_out_of_range)
            fail(line, "the integer " + clip(word) + " is too large");
        if (ec != std::errc() || end != body.data() + body.size())
            return word;
        return negative ? -value : value;
    }
    // [0-9]* ( . [0-9]* )? ( [eE] [-+]? [0-9]+ )?, with at least one digit before the exponent.
    size_t k = 0;
    size_t mantissa = 0;
    while (k < body.size() && std::isdigit(static_cast<unsigned char>(body[k])))
        ++k, ++mantissa;
    if (k < body.size() && body[k] == '.') {
        ++k;
        while (k < body.size() && std::isdigit(static_cast<unsigned char>(body[k])))
            ++k, ++mantissa;
    }
    if (mantissa == 0)
        return word;
    if (k < body.size() && (body[k] == 'e' || body[k] == 'E')) {
        ++k;
        if (k < body.size() && (body[k] == '+' || body[k] == '-'))
            ++k;
        const size_t exponent = k;
        while (k < body.size() && std::isdigit(static_cast<unsigned char>(body[k])))
            ++k;
        if (k == exponent)
            return word;
    }
    if (k != body.size())
        return word;
    std::string number(body);
    if (number[0] == '.')
        number.insert(0, "0");
    double value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec == std::errc::result_out_of_range)
        fail(line, "the number " + clip(word) + " is out of range");
    if (ec != std::errc() || end != number.data() + number.size())
        return word;
    return negative ? -value : value;
}

class YamlReader {
public:
    explicit YamlReader(std::string_view text)
        : lines_(contentLines(text))
    {
    }

    json read()
    {
        if (lines_.empty())
            return nullptr;
        json doc = block(lines_[0].indent, 0);
        if (at_ < lines_.size())
            fail(lines_[at_].number, "this line does not continue the document above (its indentation, or a value without a key)");
        return doc;
    }

private:
    // What starts at the current line, indented `indent`: a mapping, a sequence, or one value.
    json block(int indent, int depth)
    {
        if (depth > kMaxDepth)
            fail(lines_[at_].number, "the document nests too deeply");
        const Line& line = lines_[at_];
        if (isSequenceItem(line.text))
            return sequence(indent, depth);
        if (keyEnd(line) != std::string::npos)
            return mapping(indent, depth);
        const int number = line.number;
        const std::string text = line.text;
        ++at_;
        json v = value(text, number, depth);
        if (at_ < lines_.size() && lines_[at_].indent > indent)
            fail(lines_[at_].number, "unexpected indentation after a value");
        return v;
    }

    // Where "key:" ends in a line (the index of the ':'), or npos when the line is no "key: ..." line.
    size_t keyEnd(const Line& line) const
    {
        const std::string& s = line.text;
        if (s.empty() || s[0] == '[' || s[0] == '{' || s[0] == '|' || s[0] == '>')
            return std::string::npos;
        if (s[0] == '?' && (s.size() == 1 || isBlank(s[1])))
            fail(line.number, "complex keys (\"? \") are not read");
        size_t i = 0;
        if (s[0] == '"' || s[0] == '\'') {
            quoted(s, i, line.number);
            while (i < s.size() && isBlank(s[i]))
                ++i;
            return i < s.size() && s[i] == ':' && (i + 1 == s.size() || isBlank(s[i + 1])) ? i : std::string::npos;
        }
        for (; i < s.size(); ++i)
            if (s[i] == ':' && (i + 1 == s.size() || isBlank(s[i + 1])))
                return i;
        return std::string::npos;
    }

    json mapping(int indent, int depth)
    {
        json out = json::object();
        while (at_ < lines_.size()) {
            const Line line = lines_[at_];
            if (line.indent < indent)
                break;
            if (line.indent > indent)
                fail(line.number, "the indentation does not line up with the lines above");
            if (isSequenceItem(line.text))
                fail(line.number, "a sequence item (\"- \") where a key was expected");
            const size_t colon = keyEnd(line);
            if (colon == std::string::npos)
                fail(line.number, "expected \"key: value\", got \"" + clip(line.text) + "\"");
            std::string key;
            if (line.text[0] == '"' || line.text[0] == '\'') {
                size_t i = 0;
                key = quoted(line.text, i, line.number);
            } else {
                key = trimRight(line.text.substr(0, colon));
            }
            if (key.empty())
                fail(line.number, "a key is missing before ':'");
            if (key[0] == '&' || key[0] == '*' || key[0] == '!')
                fail(line.number, "anchors, aliases and tags are not read");
            if (out.contains(key))
                fail(line.number, "key " + clip(key) + " is given twice");
            size_t from = colon + 1;
            while (from < line.text.size() && isBlank(line.text[from]))
                ++from;
            const std::string rest = line.text.substr(from);
            ++at_;
            if (!rest.empty()) {
                out[key] = value(rest, line.number, depth + 1);
                if (at_ < lines_.size() && lines_[at_].indent > indent)
                    fail(lines_[at_].number, "unexpected indentation: line " + std::to_string(line.number) + " already gave " + clip(key) + " a value");
            } else if (at_ < lines_.size() && lines_[at_].indent > indent) {
                out[key] = block(lines_[at_].indent, depth + 1);
            } else if (at_ < lines_.size() && lines_[at_].indent == indent && isSequenceItem(lines_[at_].text)) {
                out[key] = sequence(indent, depth + 1);  // "key:" then "- item" at the key's own indentation
            } else {
                out[key] = nullptr;
            }
        }
        return out;
    }

    json sequence(int indent, int depth)
    {
        if (depth > kMaxDepth)
            fail(lines_[at_].number, "the document nests too deeply");
        json out = json::array();
        while (at_ < lines_.size()) {
            Line& line = lines_[at_];
            if (line.indent < indent || (line.indent == indent && !isSequenceItem(line.text)))
                break;
            if (line.indent > indent)
                fail(line.number, "the indentation does not line up with the lines above");
            size_t from = 1;
            while (from < line.text.size() && isBlank(line.text[from]))
                ++from;
            if (from == line.text.size()) {
                ++at_;
                if (at_ < lines_.size() && lines_[at_].indent > indent)
                    out.push_back(block(lines_[at_].indent, depth + 1));
                else
                    out.push_back(nullptr);
                continue;
            }
            // The item's text as a line of its own, indented to where it starts: "- a: 1" then
            // "  b: 2" is one mapping.
            line.indent += int(from);
            line.text = line.text.substr(from);
            out.push_back(block(line.indent, depth + 1));
        }
        return out;
    }

    // A value on a line: a flow collection, a quoted string or a plain scalar, nothing after it.
    json value(const std::string& text, int line, int depth)
    {
        const char c = text[0];
        if (c == '|' || c == '>')
            fail(line, "block scalars (| and >) are not read");
        if (c == '&' || c == '*' || c == '!')
            fail(line, "anchors, aliases and tags are not read");
        if (c == '@' || c == '`' || c == '%')
            fail(line, std::string("a plain value cannot start with '") + c + "'");
        size_t i = 0;
        json v;
        if (c == '[' || c == '{') {
            v = flow(text, i, line, depth);
        } else if (c == '"' || c == '\'') {
            v = quoted(text, i, line);
        } else {
            if (text.find(": ") != std::string::npos || text.back() == ':')
                fail(line, "a value holds \": \"; quote it, or put the mapping on lines of its own");
            return plainScalar(text, line);
        }
        while (i < text.size() && isBlank(text[i]))
            ++i;
        if (i < text.size())
            fail(line, "unexpected text after the value: \"" + clip(text.substr(i)) + "\"");
        return v;
    }

    // [a, b] or {k: v, ...} starting at s[i], on one line.
    json flow(const std::string& s, size_t& i, int line, int depth)
    {
        if (depth > kMaxDepth)
            fail(line, "the document nests too deeply");
        const bool isList = s[i] == '[';
        const char close = isList ? ']' : '}';
        ++i;
        json out = isList ? json::array() : json::object();
        while (true) {
            skip(s, i);
            if (i >= s.size())
                fail(line, std::string("a flow ") + (isList ? "sequence" : "mapping") + " is not closed on its line");
            if (s[i] == close) {
                ++i;
                return out;
            }
            if (isList) {
                out.push_back(flowItem(s, i, line, depth, false));
            } else {
                std::string key;
                if (s[i] == '"' || s[i] == '\'') {
                    key = quoted(s, i, line);
                } else {
                    const size_t from = i;
                    while (i < s.size() && s[i] != ':' && s[i] != ',' && s[i] != '}')
                        ++i;
                    key = trimRight(s.substr(from, i - from));
                }
                skip(s, i);
                if (key.empty() || i >= s.size() || s[i] != ':')
                    fail(line, "a flow mapping needs \"key: value\" entries");
                ++i;
                if (out.contains(key))
                    fail(line, "key " + clip(key) + " is given twice");
                out[key] = flowItem(s, i, line, depth, true);
            }
            skip(s, i);
            if (i >= s.size())
                fail(line, std::string("a flow ") + (isList ? "sequence" : "mapping") + " is not closed on its line");
            if (s[i] == ',') {
                ++i;
                continue;
            }
            if (s[i] == close) {
                ++i;
                return out;
            }
            fail(line, std::string("expected ',' or '") + close + "' in a flow " + (isList ? "sequence" : "mapping"));
        }
    }

    json flowItem(const std::string& s, size_t& i, int line, int depth, bool inMapping)
    {
        skip(s, i);
        if (i >= s.size())
            fail(line, "a value is missing");
        const char c = s[i];
        if (c == '[' || c == '{')
            return flow(s, i, line, depth + 1);
        if (c == '"' || c == '\'')
            return quoted(s, i, line);
        if (c == '&' || c == '*' || c == '!')
            fail(line, "anchors, aliases and tags are not read");
        const size_t from = i;
        while (i < s.size() && s[i] != ',' && s[i] != ']' && s[i] != '}')
            ++i;
        const std::string word = trimRight(s.substr(from, i - from));
        if (word.empty() && !inMapping)
            fail(line, "an empty item in a flow sequence");
        if (word.empty())
            return nullptr;
        return plainScalar(word, line);
    }

    static void skip(const std::string& s, size_t& i)
    {
        while (i < s.size() && isBlank(s[i]))
            ++i;
    }

    std::vector<Line> lines_;
    size_t at_ = 0;
};

}  // namespace

json parseYamlTree(std::string_view text)
{
    return YamlReader(text).read();
}

}  // namespace trainplan
