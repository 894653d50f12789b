#include "report/SlideExport.h"

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include "report/ReportContext.h"
#include "style/Theme.h"
#include "text/Format.h"

namespace slideexport {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

bool writeSvg(const ReportContext& ctx, const Slide& slide, const QString& path, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(QSize(int(kWidth), int(kHeight)));
    svg.setViewBox(QRectF(0, 0, kWidth, kHeight));
    svg.setResolution(96);
    svg.setTitle(reportpainter::viewTitle(slide.view, ctx, slide.section));
    svg.setDescription(keyFigures(ctx));
    QPainter p(&svg);
    paintSlide(ctx, slide, p, QRectF(0, 0, kWidth, kHeight));
    p.end();
    if (!file.commit()) {
        *error = QObject::tr("Writing %1 failed: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool writePng(const ReportContext& ctx, const Slide& slide, const QString& path, double pixelRatio, QString* error)
{
    QImage image(int(kWidth * pixelRatio), int(kHeight * pixelRatio), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(pixelRatio);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        p.setRenderHint(QPainter::Antialiasing);
        p.setRenderHint(QPainter::TextAntialiasing);
        paintSlide(ctx, slide, p, QRectF(0, 0, kWidth, kHeight));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

}  // namespace

namespace {

const QRectF kBody(80, 190, kWidth - 160, kHeight - 190 - 110);

}  // namespace

std::vector<Slide> slides(const ReportContext& ctx)
{
    std::vector<Slide> views = {
        {ReportView::Summary, 0, 0, "summary"},   {ReportView::Memory, 0, 0, "memory"}, {ReportView::StepTime, 0, 0, "step-time"},
        {ReportView::Timeline, 0, 0, "timeline"}, {ReportView::Layout, 0, 0, "layout"}, {ReportView::Sensitivity, 0, 0, "sensitivity"},
        {ReportView::RedFlags, 0, 0, "red-flags"},
    };
    const int sections = reportpainter::derivationSectionCount(ctx);
    for (int s = 0; s < sections; ++s)
        views.push_back({ReportView::Derivation, s, 0, QString("math-%1").arg(s + 1)});
    std::vector<Slide> out;
    for (const auto& v : views) {
        const int pages = reportpainter::pageCount(v.view, ctx, kBody.size(), v.section, kTextScale);
        for (int page = 0; page < pages; ++page)
            out.push_back({v.view, v.section, page, pages > 1 ? QString("%1-%2").arg(v.fileStem).arg(page + 1) : v.fileStem});
    }
    for (size_t i = 0; i < out.size(); ++i)
        out[i].fileStem = QString("%1-%2").arg(i + 1, 2, 10, QChar('0')).arg(out[i].fileStem);
    return out;
}

QString keyFigures(const ReportContext& ctx)
{
    const auto& a = ctx.analysis();
    const auto& e = a.estimate;
    const auto& l = ctx.plan().layout;
    return QObject::tr("%1 parameters · %2 GPUs as TP %3 × PP %4 × DP %5 × CP %6 · %7 %8 days (%9 with failures) · %10 per GPU · bubble %11")
        .arg(q(trainplan::formatCount(e.parameters.total)))
        .arg(e.gpusUsed)
        .arg(l.tp).arg(l.pp).arg(l.dp).arg(l.cp)
        .arg(QString::fromLatin1(trainplan::timeBasisLabel(trainplan::TimeBasis::Predicted)), q(trainplan::formatNumber(a.predicted.days)),
             q(trainplan::formatNumber(a.atPredictedMfu.reliability.paddedDays)), q(trainplan::formatBytes(e.perGpu.total)),
             q(trainplan::formatPercent(a.predicted.bubbleFraction)));
}

void paintSlide(const ReportContext& ctx, const Slide& slide, QPainter& p, const QRectF& rect)
{
    // Proportions are of a 1920 x 1080 slide; smaller targets scale uniformly.
    p.save();
    p.translate(rect.topLeft());
    const double s = std::min(rect.width() / kWidth, rect.height() / kHeight);
    p.scale(s, s);
    p.fillRect(QRectF(0, 0, kWidth, kHeight), Qt::white);
    const QFont title = reportpainter::font(30, true);
    p.setFont(title);
    p.setPen(theme::ink());
    const QString heading = reportpainter::viewTitle(slide.view, ctx, slide.section);
    p.drawText(QRectF(80, 50, kWidth - 160, 70), Qt::AlignLeft | Qt::AlignVCenter, slide.page > 0 ? QObject::tr("%1 (continued)").arg(heading) : heading);
    const QFont sub = reportpainter::font(13);
    p.setFont(sub);
    p.setPen(theme::muted());
    p.drawText(QRectF(80, 118, kWidth - 160, 30), Qt::AlignLeft | Qt::AlignVCenter, ctx.title());
    p.setPen(QPen(theme::compute(), 4));
    p.drawLine(QPointF(80, 160), QPointF(260, 160));
    reportpainter::paint(slide.view, ctx, p, kBody, slide.section, kTextScale, slide.page);
    p.setPen(QPen(theme::border(), 1.5));
    p.drawLine(QPointF(80, kHeight - 90), QPointF(kWidth - 80, kHeight - 90));
    const QFont foot = reportpainter::font(13);
    p.setFont(foot);
    p.setPen(theme::inkSoft());
    p.drawText(QRectF(80, kHeight - 85, kWidth - 160, 60), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, keyFigures(ctx));
    p.restore();
}

bool writeSlide(const ReportContext& ctx, const Slide& slide, const QString& path, QString* error)
{
    if (path.endsWith(".svg", Qt::CaseInsensitive))
        return writeSvg(ctx, slide, path, error);
    return writePng(ctx, slide, path, path.endsWith("@2x.png", Qt::CaseInsensitive) ? 2.0 : 1.0, error);
}

namespace {

// Marks a folder as one TrainPlan's slide export wrote, so a later export may replace it whole.
constexpr const char* kMarker = ".trainplan-slides";

// Every slide of one run, and the deck, into `directory` (which exists and is empty).
bool writeInto(const ReportContext& ctx, const QString& directory, QString* error, QStringList* names)
{
    const QDir dir(directory);
    const auto all = slides(ctx);
    for (const auto& slide : all) {
        for (const QString& name : {slide.fileStem + ".png", slide.fileStem + "@2x.png", slide.fileStem + ".svg"}) {
            if (!writeSlide(ctx, slide, dir.filePath(name), error))
                return false;
            *names << name;
        }
    }
    // The deck: one 16:9 page per slide, vectors throughout.
    const QString deckPath = dir.filePath("deck.pdf");
    QSaveFile file(deckPath);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QObject::tr("Cannot write %1: %2").arg(deckPath, file.errorString());
        return false;
    }
    QPdfWriter deck(&file);
    deck.setResolution(96);
    deck.setPageLayout(QPageLayout(QPageSize(QSizeF(kWidth / 96 * 25.4, kHeight / 96 * 25.4), QPageSize::Millimeter, "16:9"), QPageLayout::Portrait,
                                   QMarginsF(0, 0, 0, 0)));
    deck.setTitle(QObject::tr("TrainPlan slides: %1").arg(ctx.title()));
    deck.setCreator("TrainPlan");
    QPainter p(&deck);
    const QRectF page(QPointF(0, 0), deck.pageLayout().fullRectPixels(96).size());
    for (size_t i = 0; i < all.size(); ++i) {
        if (i > 0)
            deck.newPage();
        paintSlide(ctx, all[i], p, page);
    }
    if (!p.end() || !file.commit()) {
        *error = QObject::tr("Writing %1 failed: %2").arg(deckPath, file.errorString());
        return false;
    }
    *names << "deck.pdf";
    QFile marker(dir.filePath(kMarker));
    if (!marker.open(QIODevice::WriteOnly) || marker.write("TrainPlan slide export\n") < 0 || !marker.flush()) {
        *error = QObject::tr("Cannot write %1: %2").arg(marker.fileName(), marker.errorString());
        return false;
    }
    return true;
}

}  // namespace

bool writeAll(const ReportContext& ctx, const QString& directory, QString* error, QStringList* written)
{
    // One run's slides never mix with another's: they are written into a fresh folder beside the
    // target, which then replaces the target whole. A run killed midway leaves the previous
    // export untouched (and a hidden partial folder, removed by the next export).
    const QFileInfo target(QDir::cleanPath(QDir(directory).absolutePath()));
    const QDir existing(target.absoluteFilePath());
    if (target.exists()) {
        if (!target.isDir()) {
            *error = QObject::tr("%1 is a file, not a folder").arg(target.absoluteFilePath());
            return false;
        }
        const bool empty = existing.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty();
        if (!empty && !existing.exists(kMarker)) {
            *error = QObject::tr("%1 holds files TrainPlan did not write; choose an empty folder for the slides").arg(target.absoluteFilePath());
            return false;
        }
    }
    QDir parent = target.absoluteDir();
    if (!parent.exists() && !QDir().mkpath(parent.absolutePath())) {
        *error = QObject::tr("Cannot create the folder %1").arg(parent.absolutePath());
        return false;
    }
    const QString stem = "." + target.fileName() + ".trainplan-";
    for (const QString& stale : parent.entryList({stem + "*"}, QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot))
        QDir(parent.filePath(stale)).removeRecursively();
    const QString fresh = parent.filePath(stem + "new");
    if (!parent.mkdir(stem + "new")) {
        *error = QObject::tr("Cannot create a folder in %1").arg(parent.absolutePath());
        return false;
    }
    QStringList names;
    if (!writeInto(ctx, fresh, error, &names)) {
        QDir(fresh).removeRecursively();
        return false;
    }
    const QString old = parent.filePath(stem + "old");
    if (target.exists() && !parent.rename(target.fileName(), stem + "old")) {
        *error = QObject::tr("Cannot replace %1").arg(target.absoluteFilePath());
        QDir(fresh).removeRecursively();
        return false;
    }
    if (!parent.rename(stem + "new", target.fileName())) {
        *error = QObject::tr("Cannot move the slides into %1").arg(target.absoluteFilePath());
        if (QFileInfo::exists(old))
            parent.rename(stem + "old", target.fileName());
        return false;
    }
    QDir(old).removeRecursively();
    if (written)
        for (const QString& name : names)
            *written << QDir(target.absoluteFilePath()).filePath(name);
    return true;
}

}  // namespace slideexport
