// Sensitivity on a slider tick (a shown chart reads the new analysis's, computed then), and the
// tornado's paint: what the window's Sensitivity pane costs.
// A benchmark, not a test: the figures depend on the machine (and a sanitizer build is slower).
#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "render/charts/TornadoPainter.h"
#include "ui/charts/TornadoChart.h"
#include "ui/document/PlanDocument.h"

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    PlanDocument doc;
    TornadoChart chart(&doc);
    std::vector<double> ms;
    for (int i = 0; i < 200; ++i) {
        doc.edit(
            "Tick", [i](trainplan::Plan& p) { p.training.mfu = 0.35 + 0.0005 * i; }, 1);
        chart.tornado();  // what a shown chart does on its next paint: the analysis's sensitivity, computed once
        ms.push_back(chart.lastUpdateMilliseconds());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("sensitivity read after planChanged, default plan: median %.3f ms, p99 %.3f ms, max %.3f ms (200 ticks)\n",
        ms[ms.size() / 2], ms[ms.size() * 99 / 100], ms.back());
    QImage image(900, 500, QImage::Format_ARGB32_Premultiplied);
    std::vector<double> paint;
    for (int i = 0; i < 50; ++i) {
        const auto start = std::chrono::steady_clock::now();
        QPainter p(&image);
        chart.tornado().paint(p, QRectF(0, 0, 900, 500));
        p.end();
        paint.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(paint.begin(), paint.end());
    std::printf("tornado paint at 900 x 500: median %.3f ms, max %.3f ms (50 paints)\n", paint[paint.size() / 2], paint.back());
    return 0;
}
