// A landscape PDF made page by page (the comparison and sizing reports): rendered into memory at
// the report's 96 units per inch, each page with a running header (title left, "page n of N"
// right), then written by the one atomic writer (ExportFile.h), so a failed write keeps the old
// file. Rich text flows over as many pages as it needs (drawFlowingHtml).
#pragma once

#include <QBuffer>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRectF>
#include <QString>

#include <memory>

class QTextDocument;

class PdfPages {
public:
    PdfPages(const QString& title, QPageSize::PageSizeId pageSize);
    ~PdfPages();

    // The page body, below the header, inside the margins.
    QRectF body() const { return body_; }
    // Starts the painter on the first page; false when it cannot (then `error` says why).
    bool begin(const QString& path, QString* error);
    // A new page (not for the first) with its header; `pages` is the total the footer names.
    void startPage(int pages);
    QPainter& painter() { return painter_; }
    // A heading at the top of `rect`; returns the height it took.
    double heading(const QRectF& rect, const QString& text);
    // How many pages `html` needs at the body's width under a heading; drawFlowingHtml draws page `index` of them.
    int htmlPages(const QString& html);
    void drawFlowingHtml(const QString& html, int index, const QString& heading);
    // Ends the document and writes it to `path`; false with `error` on failure.
    bool finish(const QString& path, QString* error);

    static constexpr double kHeading = 28;  // a heading's line, px

private:
    std::unique_ptr<QTextDocument> layout(const QString& html) const;

    QString title_;
    QByteArray bytes_;
    QBuffer buffer_;
    QPdfWriter writer_;
    QPainter painter_;
    QRectF page_, body_;
    int pageNumber_ = 0;
};
