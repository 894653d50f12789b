#include "core/interop/ShellWords.h"

#include <cctype>
#include <map>

namespace trainplan {

namespace {

bool nameChar(char c, bool first)
{
    return c == '_' || std::isalpha(static_cast<unsigned char>(c)) || (!first && std::isdigit(static_cast<unsigned char>(c)));
}

// $NAME, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:=default}; anything else left as written.
std::string substitute(const std::string& word, const std::map<std::string, std::string>& vars)
{
    std::string out;
    for (size_t i = 0; i < word.size();) {
        if (word[i] != '$' || i + 1 >= word.size()) {
            out += word[i++];
            continue;
        }
        if (word[i + 1] == '{') {
            const size_t close = word.find('}', i + 2);
            if (close == std::string::npos) {
                out += word.substr(i);
                break;
            }
            const std::string inner = word.substr(i + 2, close - i - 2);
            size_t n = 0;
            while (n < inner.size() && nameChar(inner[n], n == 0))
                ++n;
            const std::string name = inner.substr(0, n);
            std::string rest = inner.substr(n);
            if (rest == "[@]" || rest == "[*]")  // an array: its words were read where it was set
                rest.clear();
            const auto it = vars.find(name);
            if (n > 0 && rest.empty() && it != vars.end()) {
                out += it->second;
            } else if (n > 0 && (rest.rfind(":-", 0) == 0 || rest.rfind(":=", 0) == 0 || rest.rfind("-", 0) == 0)) {
                const std::string fallback = rest.substr(rest[0] == ':' ? 2 : 1);
                out += it != vars.end() && !(rest[0] == ':' && it->second.empty()) ? it->second : fallback;
            } else {
                out += word.substr(i, close - i + 1);
            }
            i = close + 1;
            continue;
        }
        size_t n = i + 1;
        while (n < word.size() && nameChar(word[n], n == i + 1))
            ++n;
        const auto it = vars.find(word.substr(i + 1, n - i - 1));
        if (n > i + 1 && it != vars.end())
            out += it->second;
        else
            out += word.substr(i, std::max(n, i + 1) - i);
        i = std::max(n, i + 1);
    }
    return out;
}

// One shell word from `s` at `i`: quotes removed, backslash escapes honoured. Single quotes
// keep "$" literal, which substitution would otherwise touch: such a "$" becomes "\x01".
std::string readWord(const std::string& s, size_t& i)
{
    std::string word;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != ';' && s[i] != '|' && s[i] != '&') {
        const char c = s[i];
        if (c == '\'') {
            const size_t close = s.find('\'', i + 1);
            const size_t end = close == std::string::npos ? s.size() : close;
            for (size_t k = i + 1; k < end; ++k)
                word += s[k] == '$' ? '\x01' : s[k];
            i = end + 1;
        } else if (c == '"') {
            ++i;
            while (i < s.size() && s[i] != '"') {
                if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\\' || s[i + 1] == '$'))
                    ++i;
                word += s[i++];
            }
            ++i;
        } else if (c == '\\' && i + 1 < s.size()) {
            word += s[i + 1];
            i += 2;
        } else {
            word += c;
            ++i;
        }
    }
    return word;
}

}  // namespace

ShellWords splitShellWords(const std::string& script)
{
    // Line continuations join lines; comments run from a "#" that starts a word to the line's end.
    std::string s;
    s.reserve(script.size());
    for (size_t i = 0; i < script.size(); ++i) {
        if (script[i] == '\\' && i + 1 < script.size() && script[i + 1] == '\n') {
            ++i;
            continue;
        }
        if (script[i] == '\\' && i + 2 < script.size() && script[i + 1] == '\r' && script[i + 2] == '\n') {
            i += 2;
            continue;
        }
        s += script[i];
    }
    ShellWords out;
    std::map<std::string, std::string> vars;
    bool commandStart = true;  // an assignment is a word at the start of a command
    for (size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '\n' || c == ';' || c == '|' || c == '&') {
            commandStart = true;
            ++i;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (c == '#') {
            while (i < s.size() && s[i] != '\n')
                ++i;
            continue;
        }
        if (c == '(' || c == ')') {  // bash arrays: ARGS=( --num-layers 32 ... )
            ++i;
            continue;
        }
        const size_t start = i;
        std::string word = readWord(s, i);
        if (i == start)  // a lone quote at the end
            ++i;
        // NAME=value (or NAME=( for an array, whose words follow as arguments).
        size_t n = 0;
        while (n < word.size() && nameChar(word[n], n == 0))
            ++n;
        if (commandStart && n > 0 && n < word.size() && word[n] == '=') {
            std::string value = substitute(word.substr(n + 1), vars);
            for (char& ch : value)
                if (ch == '\x01')
                    ch = '$';
            vars[word.substr(0, n)] = value == "(" ? std::string() : value;
            continue;
        }
        if (word == "export" || word == "env") {
            continue;  // keeps commandStart: the assignment follows
        }
        commandStart = false;
        // An expanded variable splits into words, as the shell splits an unquoted one
        // (GPT_ARGS="--num-layers 32 ..." then $GPT_ARGS).
        std::string expanded = substitute(word, vars);
        size_t k = 0;
        while (k < expanded.size()) {
            while (k < expanded.size() && std::isspace(static_cast<unsigned char>(expanded[k])))
                ++k;
            size_t e = k;
            while (e < expanded.size() && !std::isspace(static_cast<unsigned char>(expanded[e])))
                ++e;
            if (e == k)
                break;
            std::string piece = expanded.substr(k, e - k);
            const bool unresolved = piece.find('$') != std::string::npos;
            for (char& ch : piece)
                if (ch == '\x01')
                    ch = '$';
            if (unresolved)
                out.unresolved.push_back(piece);
            out.words.push_back(std::move(piece));
            k = e;
        }
    }
    return out;
}

}  // namespace trainplan
