#include "ui/document/RecentFiles.h"

#include <QFileInfo>
#include <QSettings>

namespace recentfiles {

QStringList list()
{
    QStringList out;
    for (const auto& path : QSettings().value("recentFiles").toStringList())
        if (QFileInfo::exists(path))
            out << path;
    return out;
}

void add(const QString& path)
{
    QStringList files = QSettings().value("recentFiles").toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecent)
        files.removeLast();
    QSettings().setValue("recentFiles", files);
}

void clear()
{
    QSettings().remove("recentFiles");
}

}  // namespace recentfiles
