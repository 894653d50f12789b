// Runs a command-line tool (pdftotext, pdfinfo) for a test and returns what it printed, or a
// message naming the failure (which then fails the test's comparison).
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

inline QString runTool(const QString& program, const QStringList& args)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(30000) || p.exitCode() != 0)
        return QString("%1 failed: %2").arg(program, QString::fromUtf8(p.readAllStandardError()));
    return QString::fromUtf8(p.readAllStandardOutput());
}
