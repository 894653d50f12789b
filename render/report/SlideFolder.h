// The folder a slide export writes, replaced without ever touching what the export does not own.
//
// A slide folder carries a manifest (".trainplan-slides": one file name a line) naming the files
// TrainPlan wrote there; only those are ever replaced or removed, and only when they are regular
// files (never a link, never a folder, nothing followed out of the folder). A new export is
// written into a fresh hidden staging folder beside the target, its manifest growing before each
// file so that a run killed midway leaves a folder whose contents are all listed. Then:
//   - no target yet: the staging folder is renamed to it;
//   - the target holds only files its manifest lists: the two folders are exchanged in one step
//     (renameat2 RENAME_EXCHANGE), so the target is at every instant either the old export or
//     the new one, and the old one's listed files are removed afterwards;
//   - the target also holds files a person added (or the file system cannot exchange): the new
//     files are moved in one by one, the old export's listed files that the new one no longer
//     has are removed, and every other entry is kept and reported;
//   - the target holds files and no manifest: refused, nothing written there.
// Staging folders left by an earlier killed run are cleared only after a new export succeeded,
// and only of the files their manifests list. A target that is a symbolic link to a folder
// keeps its link; the export goes into the folder it names.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

class SlideFolder {
public:
    // Prepares a staging folder beside `target`; check ok() (and error()) before adding files.
    explicit SlideFolder(const QString& target);
    ~SlideFolder();  // an uncommitted staging folder is removed (only what it wrote)
    SlideFolder(const SlideFolder&) = delete;
    SlideFolder& operator=(const SlideFolder&) = delete;

    bool ok() const { return error_.isEmpty(); }
    const QString& error() const { return error_; }

    // Writes one file (a plain name, no folders) into the staging folder, every write checked.
    bool add(const QString& name, const QByteArray& bytes);
    // Puts the new export in place as described above. `written` gets the new files' paths,
    // `kept` the entries of the target that TrainPlan did not write and left where they were.
    bool commit(QStringList* written, QStringList* kept);

    static constexpr const char* kManifest = ".trainplan-slides";

private:
    bool fail(const QString& message);
    bool failErrno(const QString& what, int error);

    QString target_;       // the folder the user asked for, absolute
    QString folder_;       // the real folder written (target_, or what its link names)
    QString parent_;
    QString staging_;      // absolute path of the staging folder, empty once committed
    QStringList names_;    // files added, in order
    int manifestFd_ = -1;
    QString error_;
};
