// The window from the keyboard and by clicking its figures, offscreen: Ctrl+F opens the layout
// search with the focus in its first field and Return runs it; Ctrl+1 ... Ctrl+5 enlarge the
// panes and the View menu shows those keys; Tab shows a clearly visible focus ring on
// sliders, spin boxes, buttons and the headline cards; clicking a card (or Return on it)
// opens the math scrolled to its steps, highlighted.
#include "../PixelCount.h"
#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDockWidget>
#include <QMenuBar>
#include <QSignalSpy>
#include <QSlider>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QUndoStack>
#include <QWheelEvent>
#include <QtTest/qtestspontaneevent.h>
#include <QtTest>

#include "render/style/Theme.h"
#include "ui/derivation/DerivationList.h"
#include "ui/derivation/DerivationView.h"
#include "ui/document/PlanDocument.h"
#include "ui/inputs/CandidateSpinBox.h"
#include "ui/inputs/InputPanel.h"
#include "ui/inputs/ValueSlider.h"
#include "ui/search/SearchPanel.h"
#include "ui/summary/SummaryCard.h"
#include "ui/summary/SummaryPanel.h"
#include "ui/window/DashboardPane.h"
#include "ui/window/FocusRing.h"
#include "ui/window/MainWindow.h"

class TestWindowKeyboard : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void ctrlFOpensTheSearchReadyToType();
    void returnInTheSearchOptionsRunsTheSearch();
    void panesEnlargeWithCtrlAndTheirNumber();
    void tabShowsAFocusRing_data();
    void tabShowsAFocusRing();
    void clickingACardOpensItsMath_data();
    void clickingACardOpensItsMath();
    void returnOnAFocusedCardOpensItsMath();
    void wheelOverAnUnfocusedFieldScrollsThePanel();
    void ctrlZInAFocusedSpinBoxUndoesThePlan();
    void aSliderDragIsOneUndoStepNamedAfterItsEnd();

private:
    // Tabs through the window until a widget the predicate accepts has the focus.
    QWidget* tabTo(const std::function<bool(QWidget*)>& accept);
    MainWindow* window_ = nullptr;
};

void TestWindowKeyboard::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("TrainPlanTests");
    QCoreApplication::setApplicationName("tst_windowkeyboard");
}

void TestWindowKeyboard::init()
{
    QSettings().clear();
    window_ = new MainWindow;
    window_->askToSaveChanges = [] { return QMessageBox::Discard; };
    window_->resize(1600, 900);
    window_->show();
    QApplication::setActiveWindow(window_);
    QVERIFY(QTest::qWaitForWindowActive(window_));
}

void TestWindowKeyboard::cleanup()
{
    delete window_;
    window_ = nullptr;
}

QWidget* TestWindowKeyboard::tabTo(const std::function<bool(QWidget*)>& accept)
{
    if (!QApplication::focusWidget())
        window_->inputPanel()->setFocus(Qt::OtherFocusReason);
    for (int i = 0; i < 400; ++i) {
        QWidget* focus = QApplication::focusWidget();
        if (focus && i > 0 && accept(focus))
            return focus;
        QTest::keyClick(focus ? focus : window_, Qt::Key_Tab);
    }
    return nullptr;
}

void TestWindowKeyboard::ctrlFOpensTheSearchReadyToType()
{
    QDockWidget* dock = window_->searchDock();
    QVERIFY(!dock->isVisible());
    QTest::keyClick(window_, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(dock->isVisible());
    // The first field of the options: what ranks the layouts (a floating panel's window
    // becomes active a moment later).
    QTRY_VERIFY(window_->searchPanel()->isAncestorOf(QApplication::focusWidget()));
    QWidget* focus = QApplication::focusWidget();
    auto* combo = qobject_cast<QComboBox*>(focus);
    QVERIFY(combo);
    QCOMPARE(combo->currentText(), QString("Time"));
    // The focus ring shows where the keyboard is.
    QVERIFY(window_->focusRing()->isVisible());
    QCOMPARE(window_->focusRing()->widget(), focus);
    // The menu names the key.
    auto* action = window_->findChild<QAction*>("searchDockAction");
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_F));
    QVERIFY(action->isChecked());
    // Ctrl+F again with the focus in the panel closes it.
    QTest::keyClick(focus, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(!dock->isVisible());
}

void TestWindowKeyboard::returnInTheSearchOptionsRunsTheSearch()
{
    QTest::keyClick(window_, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(window_->searchDock()->isVisible());
    QTRY_VERIFY(window_->searchPanel()->isAncestorOf(QApplication::focusWidget()));
    QSignalSpy started(window_->searchPanel(), &SearchPanel::searchStarted);
    QSignalSpy finished(window_->searchPanel(), &SearchPanel::searchFinished);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QCOMPARE(started.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
    QVERIFY(!window_->searchPanel()->result().rows.empty());
    // In a spin box of the options (how many layouts to keep), Return runs it again.
    QAbstractSpinBox* spin = nullptr;
    for (QAbstractSpinBox* s : window_->searchPanel()->findChildren<QAbstractSpinBox*>())
        if (s->isVisible() && !spin)
            spin = s;
    QVERIFY(spin);
    spin->setFocus(Qt::TabFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), spin);
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(started.count(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, 60000);
}

void TestWindowKeyboard::panesEnlargeWithCtrlAndTheirNumber()
{
    const auto& panes = window_->panes();
    QCOMPARE(panes.size(), size_t(5));
    QMenu* view = nullptr;
    for (QAction* a : window_->menuBar()->actions())
        if (a->text() == "&View")
            view = a->menu();
    QVERIFY(view);
    for (size_t i = 0; i < panes.size(); ++i) {
        auto* action = window_->findChild<QAction*>(QString("enlarge%1").arg(i + 1));
        QVERIFY(action);
        const QKeySequence key(Qt::CTRL | Qt::Key(Qt::Key_1 + int(i)));
        QCOMPARE(action->shortcut(), key);
        QVERIFY(view->actions().contains(action));
        QCOMPARE(action->text(), "Enlarge " + panes[i]->objectName());
        QTest::keyClick(window_, Qt::Key(Qt::Key_1 + int(i)), Qt::ControlModifier);
        QVERIFY2(panes[i]->isEnlarged(), qPrintable(panes[i]->objectName()));
        for (size_t j = 0; j < panes.size(); ++j)
            QCOMPARE(panes[j]->isVisible(), j == i);
        QTest::keyClick(window_, Qt::Key(Qt::Key_1 + int(i)), Qt::ControlModifier);  // again: back to all panes
        QVERIFY(!panes[i]->isEnlarged());
    }
}

void TestWindowKeyboard::tabShowsAFocusRing_data()
{
    QTest::addColumn<QString>("kind");
    QTest::newRow("slider") << "slider";
    QTest::newRow("spin box") << "spin box";
    QTest::newRow("button") << "button";
    QTest::newRow("card") << "card";
}

void TestWindowKeyboard::tabShowsAFocusRing()
{
    QFETCH(QString, kind);
    const std::function<bool(QWidget*)> accept = [kind](QWidget* w) {
        if (kind == "slider")
            return qobject_cast<QSlider*>(w) != nullptr;
        if (kind == "spin box")
            return qobject_cast<QAbstractSpinBox*>(w) != nullptr;
        if (kind == "button")
            return qobject_cast<QAbstractButton*>(w) != nullptr;
        return qobject_cast<SummaryCard*>(w) != nullptr;
    };
    QWidget* target = tabTo(accept);
    QVERIFY2(target, qPrintable("no " + kind + " in the tab order"));
    FocusRing* ring = window_->focusRing();
    QTRY_VERIFY(ring->isVisible());
    QCOMPARE(ring->widget(), target);
    // Around the control, just outside its edge...
    const QRect around(ring->mapTo(target->window(), QPoint(0, 0)), ring->size());
    const QRect control(target->mapTo(target->window(), QPoint(0, 0)), target->size());
    QVERIFY(around.contains(control));
    QVERIFY(around != control);
    // ...in the focus colour, all the way round, two pixels wide.
    const QImage shot = target->window()->grab(QRect(ring->pos(), ring->size())).toImage();
    const int ringPixels = countPixels(shot, theme::accent());
    const int expected = 2 * FocusRing::kWidth * (around.width() + around.height()) - 4 * FocusRing::kWidth * FocusRing::kWidth;
    QVERIFY2(ringPixels >= expected, qPrintable(QString("%1 ring pixels of %2").arg(ringPixels).arg(expected)));
    // A click with the mouse elsewhere: the pointer says where one is, the ring goes.
    QTest::mouseClick(window_->summary()->card("flops"), Qt::LeftButton);
    QTRY_VERIFY(!ring->isVisible());
}

void TestWindowKeyboard::clickingACardOpensItsMath_data()
{
    QTest::addColumn<QString>("card");
    for (const char* id : {"parameters", "flops", "days", "gpu_hours", "step", "memory", "bubble", "mfu"})
        QTest::newRow(id) << QString(id);
}

void TestWindowKeyboard::clickingACardOpensItsMath()
{
    QFETCH(QString, card);
    QVERIFY(!window_->mathDock()->isVisible());
    QTest::mouseClick(window_->summary()->card(card), Qt::LeftButton);
    QTRY_VERIFY(window_->mathDock()->isVisible());
    DerivationList* list = window_->derivation()->list();
    const QStringList steps = window_->summary()->stepIds(card);
    QVERIFY(!steps.isEmpty());
    QCOMPARE(list->highlightedSteps(), steps);
    QTRY_VERIFY(list->viewport()->width() > 0);
    QCoreApplication::processEvents();
    // Scrolled to the first of them, which is in view and drawn on the highlight colour.
    const QRect first = list->stepRect(steps.first());
    QVERIFY(!first.isNull());
    QVERIFY2(list->viewport()->rect().contains(first.topLeft()), qPrintable(QString("step at y = %1").arg(first.top())));
    const QImage shot = list->viewport()->grab().toImage();
    QVERIFY(countPixels(shot, theme::highlight()) > first.width() * 10);
    // Every step of the card is in the math.
    for (const QString& id : steps)
        QVERIFY2(!list->stepRect(id).isNull(), qPrintable(id));
}

void TestWindowKeyboard::returnOnAFocusedCardOpensItsMath()
{
    QWidget* card = tabTo([](QWidget* w) { return w->objectName() == "memory"; });
    QVERIFY(card);
    QTest::keyClick(card, Qt::Key_Return);
    QTRY_VERIFY(window_->mathDock()->isVisible());
    QCOMPARE(window_->derivation()->list()->highlightedSteps(), window_->summary()->stepIds("memory"));
}

namespace {

// One notch of the wheel (120 eighths of a degree) downwards over the widget's centre; whether
// the widget (or a filter on it) accepted it. An ignored wheel event is what QApplication passes
// on to the parents when the window system sends it, so the scroll area under the panel scrolls
// (a test cannot send a spontaneous one: QCoreApplication::sendEvent clears the flag).
bool wheelDown(QWidget* w)
{
    const QPointF centre = QRectF(w->rect()).center();
    QWheelEvent event(centre, w->mapToGlobal(centre), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &event);
    return event.isAccepted();
}

QScrollArea* scrollAreaOf(QWidget* w)
{
    for (QWidget* p = w; p; p = p->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(p))
            return area;
    return nullptr;
}

}  // namespace

void TestWindowKeyboard::wheelOverAnUnfocusedFieldScrollsThePanel()
{
    ValueSlider* mfu = window_->inputPanel()->mfuSlider();
    QVERIFY(scrollAreaOf(mfu));
    window_->inputPanel()->nameEdit()->setFocus();
    const double before = window_->document()->plan().training.mfu;
    const int undoSteps = window_->document()->undoStack()->count();
    const QList<QWidget*> fields = {mfu->spinBox(), mfu->slider(), window_->inputPanel()->modelPresetCombo()};
    for (QWidget* field : fields) {
        QVERIFY(!field->hasFocus());
        QCOMPARE(field->focusPolicy(), Qt::StrongFocus);  // a passing wheel does not focus it either
        QVERIFY2(!wheelDown(field), field->metaObject()->className());  // left to the scroll area
        QCOMPARE(window_->document()->plan().training.mfu, before);
        QCOMPARE(window_->document()->undoStack()->count(), undoSteps);
    }
    // Once the field has the focus the wheel is its own.
    mfu->spinBox()->setFocus();
    QVERIFY(mfu->spinBox()->hasFocus());
    QVERIFY(wheelDown(mfu->spinBox()));
    QVERIFY(window_->document()->plan().training.mfu < before);
}

void TestWindowKeyboard::ctrlZInAFocusedSpinBoxUndoesThePlan()
{
    PlanDocument* doc = window_->document();
    CandidateSpinBox* tp = window_->inputPanel()->layoutSlider(trainplan::ParallelDim::Tp)->spinBox();
    const int before = doc->plan().layout.tp;
    tp->setFocus();
    QVERIFY(tp->hasFocus());
    QTest::keyClick(tp, Qt::Key_Down);  // one step down the candidate values
    QTRY_VERIFY(doc->plan().layout.tp != before);
    // Ctrl+Z with the focus still in the box: the plan's undo, not the box's text.
    QTest::keyClick(tp, Qt::Key_Z, Qt::ControlModifier);
    QTRY_COMPARE(doc->plan().layout.tp, before);
    QVERIFY(tp->hasFocus());
    QCOMPARE(tp->value(), before);
    // And redo from the same place.
    QTest::keyClick(tp, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QTRY_VERIFY(doc->plan().layout.tp != before);
}

void TestWindowKeyboard::aSliderDragIsOneUndoStepNamedAfterItsEnd()
{
    PlanDocument* doc = window_->document();
    QSlider* slider = window_->inputPanel()->mfuSlider()->slider();
    const int steps = doc->undoStack()->count();
    // A drag: pressed, moved through three positions, released.
    slider->setSliderDown(true);
    for (int v : {slider->value() - 5, slider->value() - 10, slider->value() - 15})
        slider->setSliderPosition(v);
    const double end = doc->plan().training.mfu;
    slider->setSliderDown(false);
    QCOMPARE(doc->undoStack()->count(), steps + 1);
    const QString text = doc->undoStack()->undoText();
    const QString percent = QString::number(std::lround(end * 100));
    QVERIFY2(text.contains(percent), qPrintable(text + " should name " + percent + " %"));
}

QTEST_MAIN(TestWindowKeyboard)
#include "tst_windowkeyboard.moc"
