// The derivation steps drawn directly with QPainter, only those in view: rich-text layout
// of sixty steps costs tens of milliseconds per slider tick, painting the visible dozen
// costs about one.
#pragma once

#include <QAbstractScrollArea>
#include <QHash>

#include <vector>

#include "core/text/Derivation.h"

class DerivationList : public QAbstractScrollArea {
    Q_OBJECT

public:
    explicit DerivationList(QWidget* parent = nullptr);
    void setSections(std::vector<trainplan::DerivationSection> sections, int onlySection);
    int stepCount() const;
    QString stepTitleAt(const QPoint& viewportPos) const;  // for tests and tooltips

    // Steps (by id) drawn on the highlight colour, such as a headline card's; they stay lit
    // while the plan changes under them. scrollToStep() brings one to the top of the view.
    void setHighlightedSteps(const QStringList& ids);
    QStringList highlightedSteps() const { return highlighted_; }
    bool scrollToStep(const QString& id);
    QRect stepRect(const QString& id) const;  // in viewport coordinates; null when not shown

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    struct Row {
        const trainplan::DerivationSection* section;  // heading row when step is null
        const trainplan::DerivationStep* step;
        double top = 0, height = 0;
    };
    void relayout();
    int wrappedLines(const QString& text, const QFont& font, double width) const;
    double advance(const QString& text, const QFont& font) const;

    std::vector<trainplan::DerivationSection> sections_;
    int onlySection_ = -1;
    std::vector<Row> rows_;
    QStringList highlighted_;
    QString anchorStep_;  // the step scrolled to, until the person scrolls
    double contentHeight_ = 0;
    QFont titleFont_, monoFont_, smallFont_, headingFont_;
    double monoCharWidth_ = 7;
    // Titles and sources repeat tick after tick; their widths are measured once.
    mutable QHash<QString, double> advanceCache_;
};
