#include "render/report/PngEncoder.h"

#include <csetjmp>

#include <png.h>

namespace pngencoder {

namespace {

void appendBytes(png_structp png, png_bytep data, png_size_t length)
{
    static_cast<QByteArray*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), qsizetype(length));
}

void flushNothing(png_structp) {}

// The libpng part, with only plain locals: libpng reports errors by longjmp to here, which must
// not skip a C++ destructor (so `out` and the converted image live in the caller).
bool write(const QImage& rgb, QByteArray* out)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    if (!png)
        return false;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_set_write_fn(png, out, appendBytes, flushNothing);
    png_set_IHDR(png, info, png_uint_32(rgb.width()), png_uint_32(rgb.height()), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
        PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // One filter, no per-row search; Sub suits runs of one colour along a row.
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_compression_level(png, 1);
    // The pixel density Qt writes for a 96-dpi picture (3,780 dots per metre).
    png_set_pHYs(png, info, 3780, 3780, PNG_RESOLUTION_METER);
    png_write_info(png, info);
    for (int y = 0; y < rgb.height(); ++y)
        png_write_row(png, rgb.constScanLine(y));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return true;
}

}  // namespace

QByteArray encode(const QImage& image)
{
    if (image.isNull())
        return {};
    // Packed 8-bit RGB rows, as PNG_COLOR_TYPE_RGB takes them.
    const QImage rgb = image.format() == QImage::Format_RGB888 ? image : image.convertToFormat(QImage::Format_RGB888);
    if (rgb.isNull())
        return {};
    QByteArray out;
    out.reserve(qsizetype(rgb.width()) * rgb.height() / 8);
    if (!write(rgb, &out))
        return {};
    return out;
}

}  // namespace pngencoder
