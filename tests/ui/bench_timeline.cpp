// Pipeline timeline benchmark (target: simulate p = 64, m = 1,024, v = 4 under
// 10 ms, paint that timeline under 16 ms). For each case it prints the median and
// 99th-percentile milliseconds of
//   - simulate:  ScheduleSimulator::simulate of the plan's schedule into a reused result;
//   - update:    TimelineScene::setAnalysis of a fresh analysis (made outside the timing),
//                what a slider tick costs the view: the plan's own step copied, the other
//                kinds compared (the core's Analysis::scheduleComparison(), once per analysis)
//                when comparing, every lane indexed and its activations in flight derived;
//   - timeline:  TimelinePainter::paint of the lanes into a 1600 x 600 image, after the
//                window moved (zoom, pan, tick): every event in view is walked again;
//   - repaint:   the same, window unchanged (hover, expose): the lanes' level-of-detail
//                images and wide blocks are reused;
//   - pane:      TimelineScene::paint, the timeline plus the in-flight strip, after a move;
// and how many rectangles the last paint drew one by one. Run offscreen:
//   QT_QPA_PLATFORM=offscreen bench_timeline [--runs N] [--png DIR] [--only FILE-NAME]
// --png DIR also writes each case at 1400 x 600 for a look, whole and zoomed 4x with the
// block in the middle of stage 1 hovered (its tooltip is printed).
#include "../TestPlans.h"
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "core/analysis/Analysis.h"
#include "core/base/Units.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"
#include "core/schedule/Schedule.h"
#include "render/timeline/TimelineScene.h"
#include "render/timeline/TimelineScene.h"

namespace {

struct Stats {
    double median = 0, p99 = 0;
};

Stats stats(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    const auto at = [&](double q) { return ms[std::min(ms.size() - 1, size_t(q * double(ms.size() - 1) + 0.5))]; };
    return {at(0.5), at(0.99)};
}

Stats time(int runs, const std::function<void()>& work, const std::function<void()>& prepare = {})
{
    std::vector<double> ms;
    ms.reserve(size_t(runs));
    QElapsedTimer timer;
    for (int i = 0; i < runs; ++i) {
        if (prepare)
            prepare();  // not timed
        timer.start();
        work();
        ms.push_back(double(timer.nsecsElapsed()) / trainplan::units::nanosecondsPerMillisecond);
    }
    return stats(std::move(ms));
}

trainplan::Plan interleavedDefault()
{
    trainplan::Plan plan = trainplan::defaultPlan();
    plan.layout.schedule = trainplan::Schedule::Interleaved;
    plan.layout.virtualStages = 2;
    return plan;
}

struct Case {
    const char* name;
    const char* file;
    trainplan::Plan plan;
    bool comparison;
};

}  // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    int runs = 200;
    QString pngDir;
    QString only;  // one case by its file name ("default-p64"), for a profile
    for (int i = 1; i + 1 < argc; ++i) {
        if (QString(argv[i]) == "--runs")
            runs = std::max(1, QString(argv[++i]).toInt());
        else if (QString(argv[i]) == "--png")
            pngDir = argv[++i];
        else if (QString(argv[i]) == "--only")
            only = argv[++i];
    }
    if (!pngDir.isEmpty())
        QDir().mkpath(pngDir);

    const Case cases[] = {
        {"worked example A: p 4, m 16, 1F1B", "default", trainplan::defaultPlan(), false},
        {"worked example A, interleaved v 2", "interleaved-v2", interleavedDefault(), false},
        {"worked example A, 4 schedules compared", "compare", trainplan::defaultPlan(), true},
        {"worked example A at p 64, m 256", "default-p64", testplans::defaultPlanAtStages(64), false},
        {"p 64, m 1024, v 4, interleaved", "p64-m1024-v4", testplans::largePipelinePlan(), false},
        {"p 64, m 1024, 4 schedules compared", "p64-m1024-compare", testplans::largePipelinePlan(), true},
    };
    const QRectF target(0, 0, 1600, 600);
    QImage image(target.size().toSize(), QImage::Format_ARGB32_Premultiplied);

    std::printf("%d runs each; milliseconds, median / p99\n", runs);
    std::printf("%-36s %9s %17s %17s %17s %17s %17s %8s\n", "case", "events", "simulate", "update (tick)", "timeline paint", "repaint",
        "pane paint", "rects");
    for (const Case& c : cases) {
        if (!only.isEmpty() && only != c.file)
            continue;
        const trainplan::Estimate est = trainplan::estimate(c.plan);
        const trainplan::ScheduleKind kind = trainplan::scheduleKindOf(c.plan.layout.schedule);
        const trainplan::ScheduleCosts costs = trainplan::predictedScheduleCosts(c.plan, est, trainplan::stepTimeOptionsFor(c.plan), kind);
        trainplan::ScheduleSimulator simulator;
        trainplan::ScheduleResult result;
        simulator.simulate(costs, kind, result);  // warm the reused buffers
        const Stats simulate = time(runs, [&] { simulator.simulate(costs, kind, result); });

        TimelineScene scene;
        scene.setComparison(c.comparison);
        trainplan::Analyser analyser;
        trainplan::Analysis analysis;
        analyser.analyse(c.plan, analysis);
        scene.setAnalysis(analysis);
        const Stats update = time(
            runs, [&] { scene.setAnalysis(analysis); }, [&] { analyser.analyse(c.plan, analysis); });
        size_t events = 0;
        for (int i = 0; i < scene.model().laneCount(); ++i)
            events += scene.model().lane(i).result().events.size();

        {
            QPainter warm(&image);  // fonts and glyph caches
            scene.paint(warm, target);
        }
        // Two windows a hair apart, alternated so that every paint sees a moved window.
        const auto [lo, hi] = scene.fullWindow();
        int flip = 0;
        const auto moveWindow = [&] { scene.timeline().setTimeWindow(lo, (flip++ % 2) ? hi : hi - 1e-9 * (hi - lo)); };
        const Stats timeline = time(runs, [&] {
            moveWindow();
            QPainter p(&image);
            scene.timeline().paint(p, target);
        });
        const Stats repaint = time(runs, [&] {
            QPainter p(&image);
            scene.timeline().paint(p, target);
        });
        const Stats pane = time(runs, [&] {
            scene.setWindow(lo, (flip++ % 2) ? hi : hi - 1e-9 * (hi - lo));
            QPainter p(&image);
            scene.paint(p, target);
        });
        std::printf("%-36s %9zu %7.3f / %-7.3f %7.3f / %-7.3f %7.2f / %-7.2f %7.2f / %-7.2f %7.2f / %-7.2f %8d\n", c.name, events,
            simulate.median, simulate.p99, update.median, update.p99, timeline.median, timeline.p99, repaint.median, repaint.p99,
            pane.median, pane.p99, scene.timeline().stats().rectangles);
        scene.fit();

        if (!pngDir.isEmpty()) {
            QImage shot(1400, 600, QImage::Format_ARGB32_Premultiplied);
            QPainter p(&shot);
            scene.paint(p, QRectF(0, 0, 1400, 600));
            p.end();
            shot.save(QStringLiteral("%1/timeline-%2.png").arg(pngDir, c.file));
            // Zoomed 4x into the middle of the step, with the block at the centre hovered.
            const TimelineAxis& axis = scene.timeline().axis();
            scene.zoomAt(axis.left() + axis.width() / 2, 4);
            {
                QPainter layout(&shot);
                scene.paint(layout, QRectF(0, 0, 1400, 600));  // lay out the zoomed window first
            }
            const TimelineAxis& zoomed = scene.timeline().axis();
            const auto rect = scene.timeline().eventRect({0, std::uint32_t(scene.model().lane(0).track.ops(0)[0].event)});
            const double rowY = rect ? rect->center().y() : 100;
            scene.timeline().setHighlight(scene.eventAt(QPointF(zoomed.left() + zoomed.width() / 2, rowY)));
            QPainter zoomedPainter(&shot);
            scene.paint(zoomedPainter, QRectF(0, 0, 1400, 600));
            zoomedPainter.end();
            shot.save(QStringLiteral("%1/timeline-%2-zoomed.png").arg(pngDir, c.file));
            if (const auto hovered = scene.timeline().highlight())
                std::printf("  hovered: %s\n", qPrintable(scene.timeline().describe(*hovered).replace('\n', " | ")));
        }
    }
    return 0;
}
