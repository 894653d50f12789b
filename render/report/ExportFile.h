// Every file an export writes (PDF, PNG, SVG, Markdown, the deck, a slide folder's manifest)
// goes through here: the bytes are rendered in memory first, then written by the core's one
// atomic writer (base/AtomicFile.h), which checks every write and the final sync before it
// replaces anything. A full disk therefore fails the export and leaves the previous file as it
// was; it never reports success over a truncated file.
#pragma once

#include <QByteArray>
#include <QString>

namespace exportfile {

// Returns false with `error` naming the path and the system's reason.
bool write(const QString& path, const QByteArray& bytes, QString* error);

}  // namespace exportfile
