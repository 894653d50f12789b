#include "render/report/ExportFile.h"

#include <QFile>
#include <QObject>

#include "core/base/AtomicFile.h"

namespace exportfile {

bool write(const QString& path, const QByteArray& bytes, QString* error)
{
    try {
        trainplan::writeFileAtomically(QFile::encodeName(path).toStdString(), bytes.toStdString());
        return true;
    } catch (const trainplan::FileWriteError& e) {
        if (error)
            *error = QObject::tr("%1. Nothing was replaced.").arg(QString::fromLocal8Bit(e.what()));
        return false;
    }
}

}  // namespace exportfile
