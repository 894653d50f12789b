#include "core/base/BoundedFile.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/PlanError.h"

namespace trainplan {

namespace {

std::string sizeText(size_t bytes)
{
    return bytes % units::mebibyte == 0 ? std::to_string(bytes / units::mebibyte) + " MiB" : std::to_string(bytes) + " bytes";
}

struct Fd {
    int fd;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

}  // namespace

std::string readRegularFile(const std::string& path, size_t maxBytes)
{
    // O_NONBLOCK: opening a named pipe with no writer would otherwise wait for ever.
    Fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
    if (file.fd < 0)
        throw PlanError({{"", "cannot open " + path + ": " + std::strerror(errno)}});
    struct stat st;
    if (::fstat(file.fd, &st) != 0)
        throw PlanError({{"", "cannot read " + path + ": " + std::strerror(errno)}});
    if (S_ISDIR(st.st_mode))
        throw PlanError({{"", path + " is a folder, not a file"}});
    if (!S_ISREG(st.st_mode))
        throw PlanError({{"", path + " is not a regular file (a device, pipe or socket); not read"}});
    if (st.st_size < 0 || size_t(st.st_size) > maxBytes)
        throw PlanError({{"", path + " is larger than " + sizeText(maxBytes) + "; not a file TrainPlan reads"}});
    // The size can change while we read: read at most one byte past the bound to notice.
    std::string text;
    text.resize(size_t(st.st_size));
    size_t done = 0;
    for (;;) {
        if (done == text.size()) {
            if (text.size() > maxBytes)
                throw PlanError({{"", path + " is larger than " + sizeText(maxBytes) + "; not a file TrainPlan reads"}});
            text.resize(std::min(maxBytes + 1, text.size() + 65536));
        }
        const ssize_t n = ::read(file.fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw PlanError({{"", "cannot read " + path + ": " + std::strerror(errno)}});
        }
        if (n == 0)
            break;
        done += size_t(n);
    }
    text.resize(done);
    return text;
}

}  // namespace trainplan
