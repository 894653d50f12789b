// The words of a shell launch script as the shell would pass them to a program, for reading a
// Megatron-LM command line: comments and line continuations removed, quotes honoured, simple
// variables (NAME=value, export NAME=value, ${NAME:-default}) substituted. Not a shell: a word
// holding a substitution it cannot do ($(...), $((...)), an unset variable) is kept with its
// "$" and reported, so the import can say which argument it could not read.
#pragma once

#include <string>
#include <vector>

namespace trainplan {

struct ShellWords {
    std::vector<std::string> words;
    std::vector<std::string> unresolved;  // words that still hold a "$" after substitution
};

ShellWords splitShellWords(const std::string& script);

}  // namespace trainplan
