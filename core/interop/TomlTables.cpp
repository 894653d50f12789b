#include "core/interop/TomlTables.h"

#include <charconv>
#include <cmath>
#include <string>

#include "core/base/PlanError.h"

namespace trainplan {

namespace {

constexpr int kMaxArrayDepth = 16;  // arrays in arrays: no config needs more, and the stack stays bounded

class TomlReader {
public:
    explicit TomlReader(std::string_view text)
        : text_(text)
    {
    }

    nlohmann::json read()
    {
        nlohmann::json doc = nlohmann::json::object();
        std::string table;
        doc[table] = nlohmann::json::object();
        while (true) {
            skipBlankAndComments();
            if (at_ >= text_.size())
                break;
            if (text_[at_] == '[') {
                ++at_;
                if (at_ < text_.size() && text_[at_] == '[')
                    fail("arrays of tables ([[...]]) are not read");
                skipSpaces();
                table = dottedKey();
                skipSpaces();
                expect(']');
                if (doc.contains(table) && !doc[table].empty())
                    fail("table [" + table + "] is defined twice");
                doc[table] = nlohmann::json::object();
                endOfLine();
                continue;
            }
            const std::string key = dottedKey();
            skipSpaces();
            expect('=');
            skipSpaces();
            nlohmann::json value = parseValue(0);
            if (doc[table].contains(key))
                fail("key " + key + " is given twice");
            doc[table][key] = std::move(value);
            endOfLine();
        }
        if (doc[""].empty())
            doc.erase("");
        return doc;
    }

private:
    [[noreturn]] void fail(const std::string& why) const
    {
        throw PlanError({PlanProblem{"line " + std::to_string(line_), why}});
    }

    void skipSpaces()
    {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t'))
            ++at_;
    }
    void skipComment()
    {
        if (at_ < text_.size() && text_[at_] == '#')
            while (at_ < text_.size() && text_[at_] != '\n')
                ++at_;
    }
    // Spaces, newlines and comments (between statements, and inside arrays).
    void skipBlankAndComments()
    {
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (c == ' ' || c == '\t' || c == '\r') {
                ++at_;
            } else if (c == '\n') {
                ++at_;
                ++line_;
            } else if (c == '#') {
                skipComment();
            } else {
                break;
            }
        }
    }
    void endOfLine()
    {
        skipSpaces();
        skipComment();
        if (at_ < text_.size() && text_[at_] == '\r')
            ++at_;
        if (at_ < text_.size() && text_[at_] != '\n')
            fail("unexpected text after the value: \"" + std::string(text_.substr(at_, std::min<size_t>(20, text_.size() - at_))) + "\"");
    }
    void expect(char c)
    {
        if (at_ >= text_.size() || text_[at_] != c)
            fail(std::string("expected '") + c + "'");
        ++at_;
    }

    // A key: bare or quoted parts joined by dots ("a.b").
    std::string dottedKey()
    {
        std::string key;
        while (true) {
            skipSpaces();
            if (at_ < text_.size() && (text_[at_] == '"' || text_[at_] == '\''))
                key += quoted();
            else {
                const size_t from = at_;
                while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_' || text_[at_] == '-'))
                    ++at_;
                if (at_ == from)
                    fail("expected a key");
                key += std::string(text_.substr(from, at_ - from));
            }
            skipSpaces();
            if (at_ < text_.size() && text_[at_] == '.') {
                ++at_;
                key += '.';
                continue;
            }
            return key;
        }
    }

    std::string quoted()
    {
        const char quote = text_[at_++];
        std::string out;
        while (true) {
            if (at_ >= text_.size() || text_[at_] == '\n')
                fail("a string is not closed on its line");
            const char c = text_[at_++];
            if (c == quote)
                return out;
            if (c == '\\' && quote == '"') {
                if (at_ >= text_.size())
                    fail("a string ends in a backslash");
                const char e = text_[at_++];
                switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    if (at_ + 4 > text_.size())
                        fail("a \\u escape needs four hex digits");
                    unsigned code = 0;
                    const auto [end, ec] = std::from_chars(text_.data() + at_, text_.data() + at_ + 4, code, 16);
                    if (ec != std::errc() || end != text_.data() + at_ + 4 || (code >= 0xD800 && code <= 0xDFFF))
                        fail("a \\u escape needs four hex digits of a character");
                    at_ += 4;
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
                default: fail(std::string("unknown escape \\") + e);
                }
                continue;
            }
            out += c;
        }
    }

    nlohmann::json parseValue(int depth)
    {
        if (at_ >= text_.size())
            fail("a value is missing");
        const char c = text_[at_];
        if (c == '"' || c == '\'') {
            if (text_.substr(at_, 3) == "\"\"\"" || text_.substr(at_, 3) == "'''")
                fail("multi-line strings are not read");
            return quoted();
        }
        if (c == '[') {
            if (depth >= kMaxArrayDepth)
                fail("arrays nest too deeply");
            ++at_;
            nlohmann::json array = nlohmann::json::array();
            while (true) {
                skipBlankAndComments();
                if (at_ < text_.size() && text_[at_] == ']') {
                    ++at_;
                    return array;
                }
                array.push_back(parseValue(depth + 1));
                skipBlankAndComments();
                if (at_ < text_.size() && text_[at_] == ',') {
                    ++at_;
                    continue;
                }
                skipBlankAndComments();
                expect(']');
                return array;
            }
        }
        if (c == '{')
            fail("inline tables are not read");
        // A bare word: true, false, a number.
        const size_t from = at_;
        while (at_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[at_])) && text_[at_] != ',' && text_[at_] != ']'
            && text_[at_] != '#')
            ++at_;
        const std::string word(text_.substr(from, at_ - from));
        if (word == "true")
            return true;
        if (word == "false")
            return false;
        return number(word);
    }

    nlohmann::json number(std::string word)
    {
        if (word.empty())
            fail("a value is missing");
        std::string digits;
        for (char ch : word)
            if (ch != '_')
                digits += ch;
        bool negative = false;
        std::string_view body = digits;
        if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
            negative = body[0] == '-';
            body.remove_prefix(1);
        }
        if (body == "inf")
            return negative ? -INFINITY : INFINITY;
        if (body == "nan")
            return NAN;
        int base = 10;
        if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
            base = body[1] == 'x' ? 16 : body[1] == 'o' ? 8 : 2;
            body.remove_prefix(2);
        }
        const bool isFloat = base == 10 && body.find_first_of(".eE") != std::string_view::npos;
        if (!isFloat) {
            long long value = 0;
            const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value, base);
            if (ec == std::errc() && end == body.data() + body.size() && !body.empty())
                return negative ? -value : value;
            if (ec == std::errc::result_out_of_range)
                fail("the integer " + word + " is too large");
            fail("not a value TOML knows: " + word.substr(0, 40));
        }
        double value = 0;
        const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
        if (ec != std::errc() || end != body.data() + body.size())
            fail("not a number: " + word.substr(0, 40));
        return negative ? -value : value;
    }

    std::string_view text_;
    size_t at_ = 0;
    int line_ = 1;
};

}  // namespace

nlohmann::json parseTomlTables(std::string_view text)
{
    return TomlReader(text).read();
}

}  // namespace trainplan
