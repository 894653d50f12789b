// Layout diagram benchmark: paints the diagram into a 1600 x 900 image, repeatedly, for 64,
// 2,048 and 16,384 GPUs, and prints the median and 99th-percentile milliseconds of
//   - paint:          one repaint of an unchanged plan (hover, expose, resize of the pane);
//   - plan + paint:   a slider tick: rebuild the diagram's facts and layout, then paint.
// The target is a paint under 16 ms at 16,384 GPUs. Run offscreen:
//   QT_QPA_PLATFORM=offscreen bench_layoutdiagram [--png DIR] [--runs N] [--only TEXT]
// --png DIR also writes each plan's image (plain and with a GPU selected) for a look, at
// --png-size WxH (default 1200x700), plus one plan that breaks the rules (TP 16 on 8-GPU nodes).
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/base/Units.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"
#include "render/layoutdiagram/LayoutDiagramPainter.h"

namespace {

struct Case {
    const char* name;
    int tp, pp, dp, cp;
};

trainplan::Plan planFor(const Case& c)
{
    trainplan::Plan plan = trainplan::defaultPlan();
    plan.layout.tp = c.tp;
    plan.layout.pp = c.pp;
    plan.layout.dp = c.dp;
    plan.layout.cp = c.cp;
    plan.layout.dpAuto = false;
    plan.cluster.gpus = c.tp * c.pp * c.dp * c.cp;
    plan.training.globalBatchSequences = std::max<long long>(plan.training.globalBatchSequences, c.dp);
    return plan;
}

struct Stats {
    double median = 0, p99 = 0;
};

Stats stats(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    const auto at = [&](double q) { return ms[std::min(ms.size() - 1, size_t(q * double(ms.size() - 1) + 0.5))]; };
    return {at(0.5), at(0.99)};
}

void savePngs(LayoutDiagramPainter& diagram, const QString& base, QSize size)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    const QRectF target(QPointF(0, 0), QSizeF(size));
    {
        QPainter p(&image);
        diagram.paint(p, target);
    }
    image.save(base + ".png");
    // A GPU of the second stage, so every kind of link shows.
    diagram.setSelectedRank(diagram.model()->rankMap().stride(trainplan::ParallelDim::Pp) + 1);
    {
        QPainter p(&image);
        diagram.paint(p, target);
    }
    image.save(base + "-selected.png");
    diagram.setSelectedRank(std::nullopt);
}

}  // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QString pngDir;
    QString only;  // the cases whose name holds this text, for a profile
    QSize pngSize(1200, 700);
    int runs = 200;
    for (int i = 1; i + 1 < argc; ++i) {
        if (QString(argv[i]) == "--png")
            pngDir = argv[++i];
        else if (QString(argv[i]) == "--png-size") {
            const QStringList wh = QString(argv[++i]).split('x');
            if (wh.size() == 2)
                pngSize = QSize(wh[0].toInt(), wh[1].toInt());
        } else if (QString(argv[i]) == "--runs")
            runs = std::max(1, QString(argv[++i]).toInt());
        else if (QString(argv[i]) == "--only")
            only = argv[++i];
    }
    if (!pngDir.isEmpty())
        QDir().mkpath(pngDir);

    const Case cases[] = {
        {"64 GPUs (TP 8 x PP 2 x DP 4)", 8, 2, 4, 1},
        {"2,048 GPUs (TP 8 x PP 4 x DP 64, worked example A)", 8, 4, 64, 1},
        {"2,048 GPUs (TP 8 x PP 64 x DP 4: the PP slider's end)", 8, 64, 4, 1},
        {"16,384 GPUs (TP 8 x PP 8 x DP 256)", 8, 8, 256, 1},
        {"16,384 GPUs (TP 8 x CP 4 x PP 16 x DP 32: 64 nodes per replica)", 8, 16, 32, 4},
    };
    const QRectF target(0, 0, 1600, 900);
    QImage image(target.size().toSize(), QImage::Format_ARGB32_Premultiplied);

    std::printf("%-66s %22s %22s %8s\n", "plan", "paint ms (median/p99)", "plan+paint (med/p99)", "GPUs drawn");
    for (const Case& c : cases) {
        if (!QString(c.name).contains(only))
            continue;
        const trainplan::Plan plan = planFor(c);
        const trainplan::Estimate est = trainplan::estimate(plan);
        LayoutDiagramPainter diagram;
        diagram.setPlan(plan, est);
        {
            QPainter warm(&image);  // fonts and glyph caches
            diagram.paint(warm, target);
        }
        std::vector<double> paintMs, tickMs;
        QElapsedTimer timer;
        for (int i = 0; i < runs; ++i) {
            QPainter p(&image);
            timer.start();
            diagram.paint(p, target);
            paintMs.push_back(double(timer.nsecsElapsed()) / trainplan::units::nanosecondsPerMillisecond);
        }
        for (int i = 0; i < runs; ++i) {
            QPainter p(&image);
            timer.start();
            diagram.setPlan(plan, est);
            diagram.paint(p, target);
            tickMs.push_back(double(timer.nsecsElapsed()) / trainplan::units::nanosecondsPerMillisecond);
        }
        const Stats paint = stats(paintMs), tick = stats(tickMs);
        std::printf("%-66s %10.2f / %-9.2f %10.2f / %-9.2f %8d%s\n", c.name, paint.median, paint.p99, tick.median, tick.p99,
                    diagram.individuallyDrawnGpus(), diagram.nodesAggregated() ? " (blocks)" : "");

        if (!pngDir.isEmpty())
            savePngs(diagram, QStringLiteral("%1/diagram-%2").arg(pngDir).arg(plan.cluster.gpus) + (c.cp > 1 ? "-cp" : "") + (c.pp == 64 ? "-pp64" : ""), pngSize);
    }
    if (!pngDir.isEmpty()) {
        const trainplan::Plan plan = planFor({"TP 16 on 8-GPU nodes", 16, 4, 32, 1});
        LayoutDiagramPainter diagram;
        diagram.setPlan(plan, trainplan::estimate(plan));
        savePngs(diagram, pngDir + "/diagram-tp16", pngSize);
        // MoE plans: the expert grid's caption and, selected, the EP group.
        for (const char* example : {"deepseek-v3-2048-h800", "mixtral-8x22b-256-h100"}) {
            const trainplan::Plan moe = trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/" + example + ".json");
            LayoutDiagramPainter moeDiagram;
            moeDiagram.setPlan(moe, trainplan::estimate(moe));
            savePngs(moeDiagram, pngDir + "/diagram-" + example, pngSize);
        }
    }
    return 0;
}
