#include "plan/AtomicFile.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainplan {

namespace {

std::optional<AtomicWriteStep> g_faultStep;
int g_faultError = 0;

bool faulted(AtomicWriteStep step)
{
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

// Removes the temporary file on every path out of writeFileAtomically but success.
class TemporaryFile {
public:
    explicit TemporaryFile(std::string pattern) : path_(std::move(pattern)) {}
    ~TemporaryFile()
    {
        if (fd_ >= 0)
            ::close(fd_);
        if (!path_.empty() && !kept_)
            ::unlink(path_.c_str());
    }
    int open()
    {
        fd_ = ::mkstemp(path_.data());
        if (fd_ < 0)
            path_.clear();
        return fd_;
    }
    int release()
    {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void keep() { kept_ = true; }
    const std::string& path() const { return path_; }

private:
    std::string path_;
    int fd_ = -1;
    bool kept_ = false;
};

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

void writeFileAtomically(const std::string& requestedPath, const std::string& bytes)
{
    const std::string path = resolveLinks(requestedPath);
    const std::string directory = directoryOf(path);
    const std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
    if (base.empty())
        throw FileWriteError(requestedPath, "name", EISDIR);

    TemporaryFile tmp(directory + "/." + base + ".tmp-XXXXXX");
    if (faulted(AtomicWriteStep::Open) || tmp.open() < 0)
        throw FileWriteError(requestedPath, "create a temporary file in " + directory, errno);
    int fd = tmp.release();
    auto fail = [&](const char* step) {
        const int error = errno;
        ::close(fd);
        throw FileWriteError(requestedPath, step, error);
    };

    // mkstemp creates 0600; give the file the mode a replaced file had, or the usual one.
    struct stat existing;
    mode_t mode;
    if (::stat(path.c_str(), &existing) == 0) {
        mode = existing.st_mode & 07777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
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
    if (faulted(AtomicWriteStep::Fsync) || ::fsync(fd) != 0)
        fail("fsync");
    const bool closeFaulted = faulted(AtomicWriteStep::Close);
    const int closed = ::close(fd);
    if (closeFaulted || closed != 0)
        throw FileWriteError(requestedPath, "close", closeFaulted ? g_faultError : errno);
    if (faulted(AtomicWriteStep::Rename) || ::rename(tmp.path().c_str(), path.c_str()) != 0)
        throw FileWriteError(requestedPath, "rename", errno);
    tmp.keep();
    // Make the rename itself durable; the new file is already in place, so a failure here
    // is not reported as a failed write.
    const int dirFd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
}

}  // namespace trainplan
