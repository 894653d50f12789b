// trainplan: the desktop planner. `trainplan [PLAN.json] [--set PATH=VALUE]...` opens the plan
// (or the default plan, worked example A, without an argument), with the overrides applied as
// one unsaved edit.
#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/planfile/PlanFile.h"
#include "render/report/ExportFile.h"
#include "trainplan/Version.h"
#include "ui/compare/ComparisonWindow.h"
#include "ui/document/PlanDocument.h"
#include "ui/window/MainWindow.h"

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("TrainPlan");
    QApplication::setOrganizationName("TrainPlan");
    QApplication::setApplicationVersion(trainplan::kVersion);
    QApplication::setDesktopFileName("trainplan");

    QCommandLineParser parser;
    parser.setApplicationDescription("Plans large-model pre-training runs.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("plan", "A TrainPlan plan file (.json) to open.", "[PLAN.json]");
    QCommandLineOption screenshot("screenshot", "Render the window to a PNG and exit (works headless).", "FILE.png");
    QCommandLineOption size("size", "Window size for --screenshot, e.g. 1280x800.", "WxH", "1280x800");
    QCommandLineOption set("set", "Override one field by its JSON path after opening, as an unsaved edit (repeatable).", "PATH=VALUE");
    QCommandLineOption panel("panel", "Open a side panel: math, search, sensitivity or reality (repeatable).", "NAME");
    QCommandLineOption compare("compare",
        "Open the comparison window: the opened plan (live) against this plan file (repeatable); with --screenshot, "
        "render that window.",
        "PLAN.json");
    parser.addOption(compare);
    parser.addOption(screenshot);
    parser.addOption(panel);
    parser.addOption(size);
    parser.addOption(set);
    parser.process(app);

    MainWindow window;
    const QStringList args = parser.positionalArguments();
    if (!args.isEmpty() && !window.openFile(args.first()))
        return 2;
    if (parser.isSet(set)) {
        try {
            nlohmann::json doc = trainplan::planToJson(window.document()->plan());
            for (const QString& assignment : parser.values(set))
                trainplan::applyOverride(doc, assignment.toStdString());
            window.document()->applyPlan(trainplan::planFromJson(doc), QObject::tr("Set from the command line"));
        } catch (const trainplan::PlanError& e) {
            for (const auto& p : e.problems())
                std::fprintf(stderr, "trainplan: --set: %s%s\n", p.path.empty() ? "" : (p.path + ": ").c_str(), p.message.c_str());
            return 2;
        }
    }
    // The panels asked for, checked before any window is shown; opened once it has its size.
    std::vector<QDockWidget*> panels;
    for (const QString& name : parser.values(panel)) {
        auto* dock = window.findChild<QDockWidget*>(name + "Dock");
        const std::vector<QDockWidget*> tools = window.toolDocks();
        const bool tool = dock && std::find(tools.begin(), tools.end(), dock) != tools.end();
        if (!tool) {
            std::fprintf(stderr, "trainplan: --panel: expected math, search, sensitivity or reality, got \"%s\"\n", qPrintable(name));
            return 2;
        }
        panels.push_back(dock);
    }
    for (const QString& path : parser.values(compare)) {
        QString error;
        if (!window.comparisonWindow()->addPlanFile(path, &error)) {
            std::fprintf(stderr, "trainplan: --compare: %s\n", qPrintable(error));
            return 2;
        }
    }
    const bool comparing = parser.isSet(compare);
    const auto openPanels = [&] {
        for (QDockWidget* dock : panels)
            window.openDock(dock, false);
    };
    if (parser.isSet(screenshot)) {
        // A window larger than any screen made is refused before Qt tries to allocate it.
        constexpr int kMaxSide = 8192;
        const QStringList wh = parser.value(size).split('x');
        bool okW = false, okH = false;
        const int w = wh.value(0).toInt(&okW), h = wh.value(1).toInt(&okH);
        if (wh.size() != 2 || !okW || !okH || w < 320 || h < 240 || w > kMaxSide || h > kMaxSide) {
            std::fprintf(stderr, "trainplan: --size: expected WIDTHxHEIGHT between 320x240 and %dx%d, got \"%s\"\n", kMaxSide, kMaxSide,
                         qPrintable(parser.value(size)));
            return 2;
        }
        QWidget* shown = comparing ? static_cast<QWidget*>(window.comparisonWindow()) : &window;
        window.resize(w, h);
        window.show();
        openPanels();
        if (comparing) {
            shown->resize(w, h);
            shown->show();
        }
        // Let delayed layouts (item views re-wrapping text, chart geometry) settle first.
        QElapsedTimer settle;
        settle.start();
        while (settle.elapsed() < 300)
            QApplication::processEvents(QEventLoop::AllEvents, 50);
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        QString error;
        if (!shown->grab().save(&buffer, "PNG")) {
            std::fprintf(stderr, "trainplan: --screenshot: the window could not be rendered to PNG\n");
            return 1;
        }
        if (!exportfile::write(parser.value(screenshot), png, &error)) {
            std::fprintf(stderr, "trainplan: --screenshot: %s\n", qPrintable(error));
            return 1;
        }
        return 0;
    }
    window.show();
    openPanels();
    if (comparing)
        window.showComparison();
    window.offerRecovery();
    return app.exec();
}
