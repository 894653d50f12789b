#include "core/base/AtomicFile.h"

#include <cerrno>
#include <cstdio>
#include <climits>
#include <cstring>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <ctime>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace trainplan {

namespace {

std::optional<AtomicWriteStep> g_faultStep;
int g_faultError = 0;
void (*g_stepHook)(AtomicWriteStep) = nullptr;

bool faulted(AtomicWriteStep step)
{
    if (g_stepHook)
        g_stepHook(step);
    if (g_faultStep && *g_faultStep == step) {
        errno = g_faultError;
        return true;
    }
    return false;
}

std::string directoryOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// Follows symbolic links (at most 40, as the kernel does) so the file they name is replaced
// rather than the link; a dangling link names the file to create.
std::string resolveLinks(std::string path)
{
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st;
        if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            return path;
        std::vector<char> buffer(PATH_MAX + 1);
        const ssize_t n = readlink(path.c_str(), buffer.data(), buffer.size() - 1);
        if (n < 0)
            return path;
        std::string target(buffer.data(), size_t(n));
        path = (!target.empty() && target[0] == '/') ? target : directoryOf(path) + "/" + target;
    }
    errno = ELOOP;
    throw FileWriteError(path, "resolve", ELOOP);
}

// The new contents while they are written. Where the file system allows it (Linux 3.11+: ext4,
// xfs, btrfs, tmpfs) the file has no name until it is complete (O_TMPFILE), so a process killed
// mid-write leaves nothing behind; it gets a hidden name only for the instant before the rename.
// Elsewhere it is a hidden mkstemp file from the start, removed on every failure we see.
class TemporaryFile {
public:
    TemporaryFile(std::string directory, std::string base) : directory_(std::move(directory)), base_(std::move(base)) {}
    ~TemporaryFile()
    {
        if (fd_ >= 0)
            ::close(fd_);
        if (!path_.empty() && !kept_)
            ::unlink(path_.c_str());
    }
    int open(mode_t mode)
    {
#ifdef O_TMPFILE
        fd_ = ::open(directory_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
        if (fd_ >= 0) {
            unnamed_ = true;
            return fd_;
        }
        // Not supported by this file system (or kernel): fall back to a named file.
        if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
            return -1;
#endif
        std::string pattern = directory_ + "/." + base_ + ".tmp-XXXXXX";
        fd_ = ::mkstemp(pattern.data());
        if (fd_ >= 0)
            path_ = pattern;
        return fd_;
    }
    // Gives a written, synced, closed-or-open unnamed file a hidden name beside the target.
    bool name()
    {
        if (!unnamed_)
            return true;
        std::random_device random;
        for (int attempt = 0; attempt < 16; ++attempt) {
            char suffix[16];
            std::snprintf(suffix, sizeof suffix, "%08x", unsigned(random()));
            const std::string candidate = directory_ + "/." + base_ + ".tmp-" + suffix;
            const std::string self = "/proc/self/fd/" + std::to_string(fd_);
            if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, candidate.c_str(), AT_SYMLINK_FOLLOW) == 0
                || (errno == ENOENT && ::linkat(fd_, "", AT_FDCWD, candidate.c_str(), AT_EMPTY_PATH) == 0)) {
                path_ = candidate;
                return true;
            }
            if (errno != EEXIST)
                return false;
        }
        return false;
    }
    int fd() const { return fd_; }
    int close()
    {
        const int r = ::close(fd_);
        fd_ = -1;
        return r;
    }
    void keep() { kept_ = true; }
    const std::string& path() const { return path_; }

private:
    std::string directory_;
    std::string base_;
    std::string path_;
    int fd_ = -1;
    bool unnamed_ = false;
    bool kept_ = false;
};

// A temporary file of this target that a killed writer left: named only for the instant before
// its rename (or, without O_TMPFILE, while being written), so one untouched for ten minutes is
// no live writer's. Removing a live one would only make that writer's rename fail, reported.
void removeStaleTemporaries(const std::string& directory, const std::string& base)
{
    const std::string prefix = "." + base + ".tmp-";
    DIR* dir = ::opendir(directory.c_str());
    if (!dir)
        return;
    const time_t cutoff = ::time(nullptr) - 600;
    while (const dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name.size() != prefix.size() + 6 && name.size() != prefix.size() + 8)
            continue;
        if (name.compare(0, prefix.size(), prefix) != 0)
            continue;
        struct stat st;
        if (::fstatat(::dirfd(dir), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_mtime < cutoff)
            ::unlinkat(::dirfd(dir), name.c_str(), 0);
    }
    ::closedir(dir);
}

}  // namespace

FileWriteError::FileWriteError(const std::string& path, const std::string& step, int error)
    : std::runtime_error("cannot write " + path + " (" + step + "): " + std::strerror(error))
    , path_(path)
    , error_(error)
{
}

void injectAtomicWriteFault(std::optional<AtomicWriteStep> step, int error)
{
    g_faultStep = step;
    g_faultError = error;
}

void setAtomicWriteStepHook(void (*hook)(AtomicWriteStep))
{
    g_stepHook = hook;
}

void writeFileAtomically(const std::string& requestedPath, const std::string& bytes)
{
    const std::string path = resolveLinks(requestedPath);
    const std::string directory = directoryOf(path);
    const std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
    if (base.empty())
        throw FileWriteError(requestedPath, "name", EISDIR);

    // The mode a replaced file had, or the usual one for a new file.
    struct stat existing;
    mode_t mode;
    if (::stat(path.c_str(), &existing) == 0) {
        mode = existing.st_mode & 07777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }

    TemporaryFile tmp(directory, base);
    if (faulted(AtomicWriteStep::Open) || tmp.open(mode) < 0)
        throw FileWriteError(requestedPath, "create a temporary file in " + directory, errno);
    const int fd = tmp.fd();
    auto fail = [&](const char* step) { throw FileWriteError(requestedPath, step, errno); };

    // mkstemp and O_TMPFILE apply the umask; set the mode exactly.
    if (::fchmod(fd, mode) != 0)
        fail("chmod");

    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = faulted(AtomicWriteStep::Write) ? -1 : ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fail("write");
        }
        if (n == 0) {
            errno = EIO;
            fail("write");
        }
        done += size_t(n);
    }
    // The data is on the disk before the file gets a name: a full disk or an I/O error shows
    // here at the latest, never after the target was replaced.
    if (faulted(AtomicWriteStep::Fsync) || ::fsync(fd) != 0)
        fail("fsync");
    if (!tmp.name())
        fail("name the temporary file");
    const bool closeFaulted = faulted(AtomicWriteStep::Close);
    const int closed = tmp.close();
    if (closeFaulted || closed != 0)
        throw FileWriteError(requestedPath, "close", closeFaulted ? g_faultError : errno);
    if (faulted(AtomicWriteStep::Rename) || ::rename(tmp.path().c_str(), path.c_str()) != 0)
        throw FileWriteError(requestedPath, "rename", errno);
    tmp.keep();
    removeStaleTemporaries(directory, base);
    // Make the rename itself durable; the new file is already in place, so a failure here
    // is not reported as a failed write.
    const int dirFd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
}

}  // namespace trainplan
