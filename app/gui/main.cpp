// trainplan: the desktop planner. `trainplan [PLAN.json] [--set PATH=VALUE]...` opens the plan
// (or the default plan, worked example A, without an argument), with the overrides applied as
// one unsaved edit.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "document/PlanDocument.h"
#include "plan/PlanIO.h"
#include "window/MainWindow.h"
#include "trainplan/Version.h"

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
    parser.addOption(screenshot);
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
    if (parser.isSet(screenshot)) {
        const QStringList wh = parser.value(size).split('x');
        window.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1280, wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 800);
        window.show();
        // Let delayed layouts (item views re-wrapping text, chart geometry) settle first.
        QElapsedTimer settle;
        settle.start();
        while (settle.elapsed() < 300)
            QApplication::processEvents(QEventLoop::AllEvents, 50);
        return window.grab().save(parser.value(screenshot)) ? 0 : 1;
    }
    window.show();
    window.offerRecovery();
    return app.exec();
}
