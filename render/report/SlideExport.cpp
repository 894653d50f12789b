#include "render/report/SlideExport.h"

#include "render/report/PngEncoder.h"

#include <QBuffer>
#include <QFontMetricsF>
#include <QImage>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include "core/base/Format.h"
#include "core/text/Derivation.h"
#include "render/report/DerivationHtml.h"
#include "render/report/ExportFile.h"
#include "render/report/PngEncoder.h"
#include "render/report/ReportContext.h"
#include "render/report/ReportSection.h"
#include "render/report/SlideFolder.h"
#include "render/style/Markup.h"
#include "render/style/Theme.h"

namespace slideexport {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QByteArray svgBytes(const ReportContext& ctx, const Slide& slide)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(int(kWidth), int(kHeight)));
    svg.setViewBox(QRectF(0, 0, kWidth, kHeight));
    svg.setResolution(96);
    // QSvgGenerator writes its title and description into the file as they are given.
    svg.setTitle(markup::escaped(slideTitle(ctx, slide)));
    svg.setDescription(markup::escaped(keyFigures(ctx)));
    QPainter p(&svg);
    paintSlide(ctx, slide, p, QRectF(0, 0, kWidth, kHeight));
    p.end();
    return bytes;
}

// The slide painted at a pixel ratio; a null image when it could not be made (too large for memory).
// Opaque (RGB32): the PNG then carries no alpha channel, a quarter less to compress.
QImage slideImage(const ReportContext& ctx, const Slide& slide, double pixelRatio)
{
    QImage image(int(kWidth * pixelRatio), int(kHeight * pixelRatio), QImage::Format_RGB32);
    if (image.isNull())
        return image;
    image.setDevicePixelRatio(pixelRatio);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        p.setRenderHint(QPainter::Antialiasing);
        p.setRenderHint(QPainter::TextAntialiasing);
        paintSlide(ctx, slide, p, QRectF(0, 0, kWidth, kHeight));
    }
    return image;
}

QByteArray pngBytes(const ReportContext& ctx, const Slide& slide, double pixelRatio)
{
    return pngencoder::encode(slideImage(ctx, slide, pixelRatio));
}

// The slide as the file `name` asks for: .svg is SVG, "@2x.png" PNG at twice the pixels,
// anything else PNG at 1920x1080.
QByteArray slideBytes(const ReportContext& ctx, const Slide& slide, const QString& name, QString* error)
{
    QByteArray bytes = name.endsWith(".svg", Qt::CaseInsensitive)
                           ? svgBytes(ctx, slide)
                           : pngBytes(ctx, slide, name.endsWith("@2x.png", Qt::CaseInsensitive) ? 2.0 : 1.0);
    if (bytes.isEmpty())
        *error = QObject::tr("Cannot write %1: the image could not be made (out of memory?)").arg(name);
    return bytes;
}

}  // namespace

namespace {

const QRectF kBody(80, 190, kWidth - 160, kHeight - 190 - 110);
constexpr double kColumnGap = 60;
constexpr double kAppendixScale = 1.15;  // reference material: denser than the talk's slides

QString html(const QString& body, double scale)
{
    return theme::styled(QString("<html><body style='font-family:DejaVu Sans; font-size:%1pt; color:@ink'>%2</body></html>")
                             .arg(10.0 * scale, 0, 'f', 1)
                             .arg(body));
}

// A derivation piece with its section heading when it starts the section (or a column).
QString appendixPieceHtml(
    const std::vector<trainplan::DerivationSection>& sections, const AppendixPiece& piece, bool startsColumn, double scale)
{
    const auto& section = sections[size_t(piece.section)];
    QString heading;
    if (piece.first == 0 || startsColumn)
        heading =
            QString("<p style='font-size:%1pt; margin-top:0'><b>%2%3</b></p>")
                .arg(12.0 * scale, 0, 'f', 1)
                .arg(markup::escaped(QString::fromStdString(section.title)), piece.first > 0 ? QObject::tr(" (continued)") : QString());
    return heading + derivationhtml::stepsFragment(sections, piece.section, scale, piece.first, piece.last);
}

// The derivation packed into columns of the appendix's size: whole steps, in order, each column
// as full as its height allows; a column holds pieces of more than one section.
std::vector<std::vector<AppendixPiece>> appendixColumns(const ReportContext& ctx, const QSizeF& column, double scale)
{
    const auto& sections = ctx.derivation();
    const auto columnHeight = [&](const std::vector<AppendixPiece>& pieces) {
        QString body;
        for (size_t k = 0; k < pieces.size(); ++k)
            body += appendixPieceHtml(sections, pieces[k], k == 0, scale);
        return reportpainter::htmlHeight(html(body, scale), column.width());
    };
    std::vector<std::vector<AppendixPiece>> columns(1);
    for (int s = 0; s < int(sections.size()); ++s) {
        for (int step = 0; step < int(sections[size_t(s)].steps.size()); ++step) {
            auto& current = columns.back();
            std::vector<AppendixPiece> tried = current;
            if (!tried.empty() && tried.back().section == s)
                ++tried.back().last;
            else
                tried.push_back(AppendixPiece{s, step, step + 1});
            // Measured as it will be drawn: one document per column.
            if (!current.empty() && columnHeight(tried) > column.height())
                columns.push_back({AppendixPiece{s, step, step + 1}});
            else
                current = std::move(tried);
        }
    }
    return columns;
}

// The steps of the derivation section whose step ids start with `prefix` ("communication."),
// one line each (what, formula, result), as a compact column beside a slide's table; the
// appendix has them in full with their sources.
QString sectionSteps(const ReportContext& ctx, const std::string& prefix, double scale)
{
    const auto& sections = ctx.derivation();
    const auto e = [](const std::string& t) { return markup::escaped(QString::fromStdString(t)); };
    for (const auto& section : sections) {
        if (section.steps.empty() || section.steps.front().id.rfind(prefix, 0) != 0)
            continue;
        QString rows;
        for (const auto& step : section.steps)
            rows += QString("<tr><td style='padding:3px 10px 3px 0; color:@inkSoft'>%1</td><td style='padding:3px 10px 3px 0; "
                            "font-family:DejaVu Sans Mono,monospace; color:@muted'>%2</td><td style='padding:3px 0'><b>%3</b></td></tr>")
                        .arg(e(step.title), e(step.formula), e(step.result));
        return html(QObject::tr("<p style='color:@muted; margin-top:0'>How these are computed (every step with its source: appendix)</p>") +
                        "<table cellspacing='0' cellpadding='0'>" + rows + "</table>",
                    scale);
    }
    return {};
}

QSizeF appendixColumnSize()
{
    return QSizeF((kBody.width() - kColumnGap) / 2, kBody.height());
}

void paintText(QPainter& p, const QRectF& rect, ReportView view, const ReportContext& ctx, double scale)
{
    reportpainter::paintHtmlFitted(p, rect, [&](double s) { return reportpainter::viewHtml(view, ctx, 0, s); }, scale);
}

void paintSubheading(QPainter& p, const QRectF& rect, const QString& text)
{
    p.setFont(reportpainter::font(18, true));
    p.setPen(theme::inkSoft());
    p.drawText(rect, Qt::AlignLeft | Qt::AlignTop, text);
}

void paintTitleSlide(const ReportContext& ctx, QPainter& p)
{
    const auto& plan = ctx.plan();
    const auto& l = plan.layout;
    p.setPen(QPen(theme::compute(), 6));
    p.drawLine(QPointF(80, 300), QPointF(320, 300));
    // The plan's title on up to two lines, its type shrinking until it fits them.
    const QRectF titleRect(80, 320, kWidth - 160, 150);
    QFont titleFont = reportpainter::font(44, true);
    while (titleFont.pointSizeF() > 24
           && QFontMetricsF(titleFont, p.device()).boundingRect(titleRect, Qt::TextWordWrap, ctx.title()).height() > titleRect.height())
        titleFont.setPointSizeF(titleFont.pointSizeF() * 0.94);
    p.setFont(titleFont);
    p.setPen(theme::ink());
    p.drawText(titleRect, Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap, ctx.title());
    p.setFont(reportpainter::font(18));
    p.setPen(theme::inkSoft());
    p.drawText(QRectF(80, 480, kWidth - 160, 40), Qt::AlignLeft | Qt::AlignVCenter,
               QObject::tr("%1 on %2 × %3 · %4")
                   .arg(QString::fromStdString(plan.model.name))
                   .arg(ctx.estimate().gpusUsed)
                   .arg(QString::fromStdString(plan.cluster.accelerator))
                   .arg(q(trainplan::layoutSizesText(l))));
    p.setFont(reportpainter::font(16));
    p.setPen(theme::faint());
    p.drawText(QRectF(80, 526, kWidth - 160, 36), Qt::AlignLeft | Qt::AlignVCenter, ctx.created().toString("d MMMM yyyy"));
    const QRectF ask(80, 600, kWidth - 160, 150);
    p.setPen(QPen(theme::border(), 1.5));
    p.setBrush(theme::panel());
    p.drawRoundedRect(ask, 8, 8);
    p.setFont(reportpainter::font(14));
    p.setPen(theme::muted());
    p.drawText(ask.adjusted(30, 18, -30, 0), Qt::AlignLeft | Qt::AlignTop, QObject::tr("The ask"));
    const QString askLine = reportsections::text(ctx.section(ReportView::Summary), ReportPartKind::Title);
    reportpainter::paintHtmlFitted(p, ask.adjusted(30, 56, -30, -12), [&](double s) { return html("<b>" + askLine + "</b>", s); }, 2.2);
}

void paintBody(const ReportContext& ctx, const Slide& slide, QPainter& p)
{
    const double left = kBody.left(), top = kBody.top(), w = kBody.width(), h = kBody.height();
    switch (slide.kind) {
    case SlideKind::Title:
        return;
    case SlideKind::Ask: {
        const double split = 0.52 * w;
        paintText(p, QRectF(left, top, split - 40, h), ReportView::Ask, ctx, 1.8);
        reportpainter::paint(ReportView::Sensitivity, ctx, p, QRectF(left + split, top, w - split, h), 0, 1.35);
        return;
    }
    case SlideKind::LayoutWhy: {
        const double split = 0.42 * w;
        reportpainter::paint(ReportView::Layout, ctx, p, QRectF(left, top, split - 30, h), 0, 1.5);
        paintText(p, QRectF(left + split, top, w - split, h), ReportView::LayoutWhy, ctx, 2.1);
        return;
    }
    case SlideKind::Memory: {
        const double split = 0.6 * w;
        reportpainter::paint(ReportView::Memory, ctx, p, QRectF(left, top, split - 40, h), 0, 1.6);
        reportpainter::paintHtmlFitted(p, QRectF(left + split, top + 20, w - split, h - 20),
                                       [&](double s) { return html(reportsections::text(ctx.section(ReportView::Memory)), s); }, 2.0);
        return;
    }
    case SlideKind::TimeAndPipeline: {
        const double upper = 0.42 * h;
        const double split = 0.6 * w;
        reportpainter::paint(ReportView::StepTime, ctx, p, QRectF(left, top, split - 40, upper), 0, 1.4);
        reportpainter::paintHtmlFitted(p, QRectF(left + split, top, w - split, upper),
                                       [&](double s) { return html(reportsections::text(ctx.section(ReportView::StepTime)), s); }, 1.45);
        reportpainter::paint(ReportView::Timeline, ctx, p, QRectF(left, top + upper + 20, w, h - upper - 20), 0, 1.3);
        return;
    }
    case SlideKind::Communication: {
        // The table at talk size, and under it the derivation's steps behind its figures.
        const double upper = 0.42 * h;
        paintText(p, QRectF(left, top, w, upper), ReportView::Communication, ctx, 1.9);
        reportpainter::paintHtmlFitted(p, QRectF(left, top + upper + 20, w, h - upper - 20),
                                       [&](double s) { return sectionSteps(ctx, "communication.", s); }, 1.5);
        return;
    }
    case SlideKind::Reliability: {
        const double split = 0.5 * w;
        paintText(p, QRectF(left, top, split - 50, h), ReportView::Reliability, ctx, 1.9);
        reportpainter::paintHtmlFitted(p, QRectF(left + split, top, w - split, h),
                                       [&](double s) { return sectionSteps(ctx, "reliability.", s); }, 1.6);
        return;
    }
    case SlideKind::Risks: {
        const double half = (w - kColumnGap) / 2;
        paintSubheading(p, QRectF(left, top, half, 40), reportpainter::viewTitle(ReportView::Risks, ctx));
        paintText(p, QRectF(left, top + 50, half, h - 50), ReportView::Risks, ctx, 1.9);
        const double right = left + half + kColumnGap;
        paintSubheading(p, QRectF(right, top, half, 40), reportpainter::viewTitle(ReportView::Staging, ctx));
        paintText(p, QRectF(right, top + 50, half, h - 50), ReportView::Staging, ctx, 1.9);
        return;
    }
    case SlideKind::Appendix: {
        const auto& sections = ctx.derivation();
        const QSizeF column = appendixColumnSize();
        for (size_t c = 0; c < slide.columns.size(); ++c) {
            QString body;
            for (size_t k = 0; k < slide.columns[c].size(); ++k)
                body += appendixPieceHtml(sections, slide.columns[c][k], k == 0, kAppendixScale);
            const QRectF rect(left + double(c) * (column.width() + kColumnGap), top, column.width(), column.height());
            reportpainter::paintHtmlFitted(p, rect, [&](double) { return html(body, kAppendixScale); }, kAppendixScale);
        }
        return;
    }
    case SlideKind::View: reportpainter::paint(slide.view, ctx, p, kBody, slide.section, kTextScale, slide.page); return;
    }
}

}  // namespace

std::vector<Slide> slides(const ReportContext& ctx)
{
    std::vector<Slide> out = {
        {ReportView::Summary, 0, 0, "title", SlideKind::Title, {}},
        {ReportView::Ask, 0, 0, "ask", SlideKind::Ask, {}},
        {ReportView::LayoutWhy, 0, 0, "layout", SlideKind::LayoutWhy, {}},
        {ReportView::Memory, 0, 0, "memory", SlideKind::Memory, {}},
        {ReportView::StepTime, 0, 0, "time-and-pipeline", SlideKind::TimeAndPipeline, {}},
        {ReportView::Communication, 0, 0, "communication", SlideKind::Communication, {}},
        {ReportView::Reliability, 0, 0, "reliability", SlideKind::Reliability, {}},
        {ReportView::Risks, 0, 0, "risks-and-validation", SlideKind::Risks, {}},
    };
    // The appendix: the derivation, two columns a slide.
    const auto columns = appendixColumns(ctx, appendixColumnSize(), kAppendixScale);
    for (size_t c = 0, page = 0; c < columns.size(); c += 2, ++page) {
        Slide slide{ReportView::Derivation, 0, int(page), QString("appendix-math-%1").arg(page + 1), SlideKind::Appendix, {columns[c]}};
        if (c + 1 < columns.size())
            slide.columns.push_back(columns[c + 1]);
        out.push_back(std::move(slide));
    }
    for (size_t i = 0; i < out.size(); ++i)
        out[i].fileStem = QString("%1-%2").arg(i + 1, 2, 10, QChar('0')).arg(out[i].fileStem);
    return out;
}

QString slideTitle(const ReportContext& ctx, const Slide& slide)
{
    switch (slide.kind) {
    case SlideKind::Title: return ctx.title();
    case SlideKind::Ask: return reportpainter::viewTitle(ReportView::Ask, ctx);
    case SlideKind::LayoutWhy: return reportpainter::viewTitle(ReportView::LayoutWhy, ctx);
    case SlideKind::Memory: return reportpainter::viewTitle(ReportView::Memory, ctx);
    case SlideKind::TimeAndPipeline: return QObject::tr("Step time and pipeline");
    case SlideKind::Communication: return reportpainter::viewTitle(ReportView::Communication, ctx);
    case SlideKind::Reliability: return reportpainter::viewTitle(ReportView::Reliability, ctx);
    case SlideKind::Risks: return QObject::tr("Risks and the staged validation plan");
    case SlideKind::Appendix: return QObject::tr("Appendix %1: the math").arg(slide.page + 1);
    case SlideKind::View: {
        const QString heading = reportpainter::viewTitle(slide.view, ctx, slide.section);
        return slide.page > 0 ? QObject::tr("%1 (continued)").arg(heading) : heading;
    }
    }
    return {};
}

QString keyFigures(const ReportContext& ctx)
{
    const auto& a = ctx.analysis();
    const auto& e = a.estimate;
    const auto& l = ctx.plan().layout;
    return QObject::tr("%1 parameters · %2 as %3 · %4 %5 days (%6 with failures) · %7 per GPU · bubble %8")
        .arg(q(trainplan::formatCount(e.parameters.total)))
        .arg(q(trainplan::countOf(e.gpusUsed, "GPU")))
        .arg(q(trainplan::layoutSizesText(l)))
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
    if (slide.kind == SlideKind::Title) {
        paintTitleSlide(ctx, p);
        p.restore();
        return;
    }
    p.setFont(reportpainter::font(30, true));
    p.setPen(theme::ink());
    p.drawText(QRectF(80, 50, kWidth - 160, 70), Qt::AlignLeft | Qt::AlignVCenter, slideTitle(ctx, slide));
    p.setFont(reportpainter::font(13));
    p.setPen(theme::muted());
    p.drawText(QRectF(80, 118, kWidth - 160, 30), Qt::AlignLeft | Qt::AlignVCenter,
        slide.kind == SlideKind::Appendix ? QObject::tr("%1 · appendix: every step of the arithmetic, with its source").arg(ctx.title())
                                          : ctx.title());
    p.setPen(QPen(slide.kind == SlideKind::Appendix ? theme::quiet() : theme::compute(), 4));
    p.drawLine(QPointF(80, 160), QPointF(260, 160));
    paintBody(ctx, slide, p);
    p.setPen(QPen(theme::border(), 1.5));
    p.drawLine(QPointF(80, kHeight - 90), QPointF(kWidth - 80, kHeight - 90));
    p.setFont(reportpainter::font(13));
    p.setPen(theme::inkSoft());
    p.drawText(QRectF(80, kHeight - 85, kWidth - 160, 60), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, keyFigures(ctx));
    p.restore();
}

bool writeSlide(const ReportContext& ctx, const Slide& slide, const QString& path, QString* error)
{
    const QByteArray bytes = slideBytes(ctx, slide, path, error);
    return !bytes.isEmpty() && exportfile::write(path, bytes, error);
}

namespace {

QByteArray deckBytes(const ReportContext& ctx)
{
    // One 16:9 page per slide, vectors throughout.
    const auto all = slides(ctx);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter deck(&buffer);
    deck.setResolution(96);
    deck.setPageLayout(QPageLayout(QPageSize(QSizeF(kWidth / 96 * 25.4, kHeight / 96 * 25.4), QPageSize::Millimeter, "16:9"),
        QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    deck.setTitle(QObject::tr("TrainPlan slides: %1").arg(ctx.title()));
    deck.setCreator("TrainPlan");
    QPainter p(&deck);
    const QRectF page(QPointF(0, 0), deck.pageLayout().fullRectPixels(96).size());
    for (size_t i = 0; i < all.size(); ++i) {
        if (i > 0)
            deck.newPage();
        paintSlide(ctx, all[i], p, page);
    }
    if (!p.end())
        return {};
    return bytes;
}

}  // namespace

bool writeAll(const ReportContext& ctx, const QString& directory, QString* error, QStringList* written, QStringList* kept)
{
    // SlideFolder.h: a staging folder, then one exchange (or file by file beside a person's files);
    // nothing TrainPlan did not write is ever removed.
    SlideFolder folder(directory);
    for (const auto& slide : slides(ctx)) {
        for (const QString& name : {slide.fileStem + ".png", slide.fileStem + "@2x.png", slide.fileStem + ".svg"}) {
            const QByteArray bytes = slideBytes(ctx, slide, name, error);
            if (bytes.isEmpty())
                return false;
            if (!folder.add(name, bytes)) {
                *error = folder.error();
                return false;
            }
        }
    }
    const QByteArray deck = deckBytes(ctx);
    if (deck.isEmpty()) {
        *error = QObject::tr("Cannot make the deck PDF");
        return false;
    }
    if (!folder.add("deck.pdf", deck) || !folder.commit(written, kept)) {
        *error = folder.error();
        return false;
    }
    return true;
}

}  // namespace slideexport
