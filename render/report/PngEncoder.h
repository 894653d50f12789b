// Slides as PNG, fast: libpng directly with one row filter (Sub) and zlib level 1, instead of
// QImage::save's adaptive filtering at zlib's default level. Encoding was 70 % of the slide set's
// time (perf on bench_report: libpng's filter search and zlib), and these flat-coloured pictures
// gain little from either. Thread-safe: it reads only the image it is given.
#pragma once

#include <QByteArray>
#include <QImage>

namespace pngencoder {

// The image as an 8-bit RGB PNG (alpha dropped: slides are opaque); empty when the image is null
// or libpng fails.
QByteArray encode(const QImage& image);

}  // namespace pngencoder
