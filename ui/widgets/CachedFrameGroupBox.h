// A QGroupBox that paints its frame and title once into a pixmap and copies from it after.
// Its rows are see-through, so every slider tick that repaints a slider or a spin box inside
// it repainted the box beneath them too, and Fusion draws that frame by loading its pixmap
// and stretching it in nine pieces, with the title shaped again: about 5 % of a tick's time
// (profiled with bench_window). The copy is redrawn when anything the style reads changes.
#pragma once

#include <QGroupBox>
#include <QPixmap>

class QStyleOptionGroupBox;

class CachedFrameGroupBox : public QGroupBox {
    Q_OBJECT

public:
    explicit CachedFrameGroupBox(const QString& title, QWidget* parent = nullptr);
    // How many times the frame has been drawn by the style, for tests.
    int framesDrawn() const { return framesDrawn_; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    // What the style's drawing depends on: when it differs from the cached copy's, the copy
    // is drawn again.
    struct Key {
        QSize size;
        qreal devicePixelRatio = 0;
        int state = 0;
        int subControls = 0;
        int activeSubControls = 0;
        QString text;
        qint64 paletteKey = 0;
        QString fontKey;
        bool operator==(const Key&) const = default;
    };
    Key keyFor(const QStyleOptionGroupBox& option) const;

    QPixmap frame_;
    Key frameKey_;
    int framesDrawn_ = 0;
};
