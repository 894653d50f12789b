#include "render/report/SlideFolder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>
#include <QSet>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/AtomicFile.h"
#include "core/base/Units.h"

namespace {

constexpr const char* kManifestHeader = "TrainPlan slide export 2";
// Exports before the manifest listed its files wrote this line alone; their files are the ones
// named as TrainPlan names slides.
constexpr const char* kLegacyHeader = "TrainPlan slide export";

QByteArray encoded(const QString& path)
{
    return QFile::encodeName(path);
}

// A name TrainPlan could have written into a slide folder: one plain component.
bool isPlainName(const QString& name)
{
    return !name.isEmpty() && name != "." && name != ".." && !name.contains('/') && !name.contains(QChar(0));
}

// Reads a small regular file under `dirFd` without following a link; empty when absent.
bool readSmallFile(int dirFd, const char* name, QByteArray* out)
{
    const int fd = ::openat(dirFd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > off_t(trainplan::units::mebibyte)) {
        ::close(fd);
        return false;
    }
    out->clear();
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out->append(buffer, int(n));
    }
    ::close(fd);
    return true;
}

enum class EntryKind { Missing, Regular, Link, Directory, Other };

EntryKind kindAt(int dirFd, const QByteArray& name)
{
    struct stat st;
    if (::fstatat(dirFd, name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return EntryKind::Missing;
    if (S_ISREG(st.st_mode))
        return EntryKind::Regular;
    if (S_ISLNK(st.st_mode))
        return EntryKind::Link;
    if (S_ISDIR(st.st_mode))
        return EntryKind::Directory;
    return EntryKind::Other;
}

QStringList entriesAt(int dirFd)
{
    QStringList out;
    const int copy = ::dup(dirFd);
    if (copy < 0)
        return out;
    DIR* dir = ::fdopendir(copy);
    if (!dir) {
        ::close(copy);
        return out;
    }
    ::rewinddir(dir);
    while (const dirent* e = ::readdir(dir)) {
        const QString name = QFile::decodeName(e->d_name);
        if (name != "." && name != "..")
            out << name;
    }
    ::closedir(dir);
    return out;
}

// What a folder's manifest says TrainPlan owns there. nullopt: no manifest (not a slide folder).
std::optional<QSet<QString>> ownedNames(int dirFd)
{
    QByteArray text;
    if (!readSmallFile(dirFd, SlideFolder::kManifest, &text))
        return std::nullopt;
    const QStringList lines = QString::fromUtf8(text).split('\n', Qt::SkipEmptyParts);
    QSet<QString> owned;
    if (lines.isEmpty())
        return owned;
    if (lines.first() == kManifestHeader) {
        for (int i = 1; i < lines.size(); ++i)
            if (isPlainName(lines[i]) && lines[i] != SlideFolder::kManifest)
                owned.insert(lines[i]);
        return owned;
    }
    if (lines.first() == kLegacyHeader) {
        static const QRegularExpression slideName("^(\\d\\d-[a-z0-9-]+(@2x\\.png|\\.png|\\.svg)|deck\\.pdf)$");
        for (const QString& name : entriesAt(dirFd))
            if (slideName.match(name).hasMatch())
                owned.insert(name);
        return owned;
    }
    return std::nullopt;  // someone else's file of that name: not ours to act on
}

// Removes the files the manifest of the folder `name` (in `parentFd`) lists, the manifest, and
// the folder when that leaves it empty. A link, a non-folder or a folder without our manifest
// is left alone. Returns the entries left behind (none when the folder went).
QStringList removeOwnedFolder(int parentFd, const QString& name)
{
    const QByteArray n = encoded(name);
    const int fd = ::openat(parentFd, n.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return {};
    QStringList left;
    const auto owned = ownedNames(fd);
    if (owned) {
        for (const QString& file : *owned)
            if (kindAt(fd, encoded(file)) == EntryKind::Regular)
                ::unlinkat(fd, encoded(file).constData(), 0);
        ::unlinkat(fd, SlideFolder::kManifest, 0);
    }
    left = entriesAt(fd);
    ::close(fd);
    if (left.isEmpty())
        ::unlinkat(parentFd, n.constData(), AT_REMOVEDIR);
    return left;
}

int openDirectory(const QString& path)
{
    return ::open(encoded(path).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

struct FdCloser {
    int fd;
    ~FdCloser()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

}  // namespace

SlideFolder::SlideFolder(const QString& target)
{
    target_ = QDir::cleanPath(QDir(target).absolutePath());
    folder_ = target_;
    struct stat st;
    const QByteArray t = encoded(target_);
    if (::lstat(t.constData(), &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            // The link stays; the export goes into the folder it names.
            const QString real = QFileInfo(target_).canonicalFilePath();
            if (real.isEmpty() || !QFileInfo(real).isDir()) {
                fail(QObject::tr("%1 is a link to something that is not a folder").arg(target_));
                return;
            }
            folder_ = real;
        } else if (!S_ISDIR(st.st_mode)) {
            fail(QObject::tr("%1 is a file, not a folder").arg(target_));
            return;
        }
    } else if (errno != ENOENT) {
        failErrno(target_, errno);
        return;
    }
    parent_ = QFileInfo(folder_).absolutePath();
    if (!QDir().mkpath(parent_)) {
        fail(QObject::tr("Cannot create the folder %1").arg(parent_));
        return;
    }
    // Refuse a folder that is not a slide export before writing anything.
    if (const int fd = openDirectory(folder_); fd >= 0) {
        FdCloser closer{fd};
        if (!entriesAt(fd).isEmpty() && !ownedNames(fd)) {
            fail(QObject::tr("%1 holds files TrainPlan did not write; choose an empty folder for the slides").arg(folder_));
            return;
        }
    }
    QByteArray pattern = encoded(QDir(parent_).filePath("." + QFileInfo(folder_).fileName() + ".trainplan-XXXXXX"));
    if (!::mkdtemp(pattern.data())) {
        failErrno(QObject::tr("a staging folder in %1").arg(parent_), errno);
        return;
    }
    staging_ = QFile::decodeName(pattern);
    const QByteArray manifest = encoded(QDir(staging_).filePath(kManifest));
    manifestFd_ = ::open(manifest.constData(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (manifestFd_ < 0) {
        failErrno(QFile::decodeName(manifest), errno);
        return;
    }
    const std::string header = std::string(kManifestHeader) + "\n";
    if (::write(manifestFd_, header.data(), header.size()) != ssize_t(header.size()))
        failErrno(QFile::decodeName(manifest), errno ? errno : EIO);
}

SlideFolder::~SlideFolder()
{
    if (manifestFd_ >= 0)
        ::close(manifestFd_);
    if (staging_.isEmpty())
        return;
    const int parentFd = openDirectory(parent_);
    if (parentFd >= 0) {
        removeOwnedFolder(parentFd, QFileInfo(staging_).fileName());
        ::close(parentFd);
    }
}

bool SlideFolder::fail(const QString& message)
{
    if (error_.isEmpty())
        error_ = message;
    return false;
}

bool SlideFolder::failErrno(const QString& what, int error)
{
    return fail(QObject::tr("Cannot write %1: %2").arg(what, QString::fromLocal8Bit(std::strerror(error))));
}

bool SlideFolder::add(const QString& name, const QByteArray& bytes)
{
    if (!ok())
        return false;
    if (!isPlainName(name) || name == kManifest || names_.contains(name))
        return fail(QObject::tr("%1 is not a name a slide file can have").arg(name));
    // Listed first, written second: a kill in between leaves a listed name with no file, never a
    // file no manifest owns.
    const QByteArray line = name.toUtf8() + '\n';
    if (::write(manifestFd_, line.constData(), size_t(line.size())) != ssize_t(line.size()))
        return failErrno(QDir(staging_).filePath(kManifest), errno ? errno : EIO);
    names_ << name;
    try {
        trainplan::writeFileAtomically(encoded(QDir(staging_).filePath(name)).toStdString(), bytes.toStdString());
    } catch (const trainplan::FileWriteError& e) {
        return fail(QObject::tr("%1. The slides were not replaced.").arg(QString::fromLocal8Bit(e.what())));
    }
    return true;
}

bool SlideFolder::commit(QStringList* written, QStringList* kept)
{
    if (!ok())
        return false;
    if (::fsync(manifestFd_) != 0 || ::close(manifestFd_) != 0) {
        manifestFd_ = -1;
        return failErrno(QDir(staging_).filePath(kManifest), errno);
    }
    manifestFd_ = -1;
    const int parentFd = openDirectory(parent_);
    if (parentFd < 0)
        return failErrno(parent_, errno);
    FdCloser parentCloser{parentFd};
    const QString stagingName = QFileInfo(staging_).fileName();
    const QString folderName = QFileInfo(folder_).fileName();
    const QByteArray stagingN = encoded(stagingName), folderN = encoded(folderName);

    QStringList foreign;
    bool done = false;
    const EntryKind targetKind = kindAt(parentFd, folderN);
    if (targetKind == EntryKind::Missing) {
        if (::renameat2(parentFd, stagingN.constData(), parentFd, folderN.constData(), RENAME_NOREPLACE) == 0
            || ((errno == EINVAL || errno == ENOSYS) && ::renameat(parentFd, stagingN.constData(), parentFd, folderN.constData()) == 0))
            done = true;
        else if (errno != EEXIST && errno != ENOTEMPTY)
            return failErrno(folder_, errno);
    }
    int folderFd = -1;
    if (!done) {
        folderFd = ::openat(parentFd, folderN.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (folderFd < 0)
            return failErrno(folder_, errno);
    }
    FdCloser folderCloser{folderFd};
    if (!done) {
        const auto owned = ownedNames(folderFd);
        const QStringList present = entriesAt(folderFd);
        if (!owned && !present.isEmpty())
            return fail(QObject::tr("%1 holds files TrainPlan did not write; choose an empty folder for the slides").arg(folder_));
        for (const QString& name : present)
            if (name != kManifest && !(owned && owned->contains(name) && kindAt(folderFd, encoded(name)) == EntryKind::Regular))
                foreign << name;
        if (foreign.isEmpty()
            && ::renameat2(parentFd, stagingN.constData(), parentFd, folderN.constData(), RENAME_EXCHANGE) == 0) {
            // The staging name now holds the previous export: only its listed files go.
            done = true;
            for (const QString& name : removeOwnedFolder(parentFd, stagingName))
                foreign << name;  // cannot happen for a folder of our files alone, but never silently
            staging_.clear();
        }
    }
    if (!done) {
        // File by file: a person's files stay where they are. Check every name first so a
        // clash refuses the export before anything moved.
        const int stagingFd = ::openat(parentFd, stagingN.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (stagingFd < 0)
            return failErrno(staging_, errno);
        FdCloser stagingCloser{stagingFd};
        const auto owned = ownedNames(folderFd).value_or(QSet<QString>());
        for (const QString& name : names_)
            if (foreign.contains(name))
                return fail(QObject::tr("%1 already holds %2, which TrainPlan did not write; move it or choose another folder")
                                .arg(folder_, name));
        for (const QString& name : names_)
            if (::renameat(stagingFd, encoded(name).constData(), folderFd, encoded(name).constData()) != 0)
                return failErrno(QDir(folder_).filePath(name), errno);
        for (const QString& name : owned)
            if (!names_.contains(name) && kindAt(folderFd, encoded(name)) == EntryKind::Regular)
                ::unlinkat(folderFd, encoded(name).constData(), 0);
        // The manifest last: until it lands, the old one lists what the folder held.
        if (::renameat(stagingFd, kManifest, folderFd, kManifest) != 0)
            return failErrno(QDir(folder_).filePath(kManifest), errno);
        ::fsync(folderFd);
        ::unlinkat(parentFd, stagingN.constData(), AT_REMOVEDIR);
    }
    staging_.clear();
    ::fsync(parentFd);
    // What earlier runs killed midway left beside the target: now that a whole export is in
    // place, their listed files can go.
    const QString prefix = "." + folderName + ".trainplan-";
    for (const QString& name : entriesAt(parentFd))
        if (name.startsWith(prefix) && name.size() == prefix.size() + 6)
            removeOwnedFolder(parentFd, name);
    if (written)
        for (const QString& name : names_)
            *written << QDir(target_).filePath(name);
    if (kept)
        for (const QString& name : foreign)
            *kept << QDir(target_).filePath(name);
    return true;
}
