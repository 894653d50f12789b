// Writing a file so that it is either wholly replaced or left exactly as it was (POSIX).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace trainplan {

// A write that did not happen; what() names the path and the system's reason (errno text).
class FileWriteError : public std::runtime_error {
public:
    FileWriteError(const std::string& path, const std::string& step, int error);
    const std::string& path() const { return path_; }
    int error() const { return error_; }

private:
    std::string path_;
    int error_;
};

// Writes `bytes` to a new temporary file in the target's directory, checking every write(),
// then fsync(), close() and rename() over the target, then fsyncs the directory. On any
// failure the temporary file is removed, the previous file is untouched, and FileWriteError
// is thrown. The temporary file is unnamed while it is written (O_TMPFILE where the file system
// has it), so a process killed mid-write leaves no partial file behind. When `path` is a symbolic link, the file it points to is replaced
// and the link kept. A new file gets mode 0666 & ~umask; a replaced file keeps its mode.
void writeFileAtomically(const std::string& path, const std::string& bytes);

// For tests: make the next atomic writes fail at one step as if the system call had
// returned `error` (e.g. ENOSPC at Write). std::nullopt turns the fault off.
enum class AtomicWriteStep { Open, Write, Fsync, Close, Rename };
void injectAtomicWriteFault(std::optional<AtomicWriteStep> step, int error = 0);
// For tests: called as each step starts (nullptr turns it off), e.g. to end a child process
// there as a kill would.
void setAtomicWriteStepHook(void (*hook)(AtomicWriteStep));

}  // namespace trainplan
