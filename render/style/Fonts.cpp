#include "render/style/Fonts.h"

namespace fonts {

namespace {

QFont base()
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setStyleHint(QFont::SansSerif);
    f.setStyleStrategy(QFont::PreferNoShaping);
    return f;
}

}  // namespace

QFont pixels(int pixelSize, QFont::Weight weight)
{
    QFont f = base();
    f.setPixelSize(pixelSize);
    f.setWeight(weight);
    return f;
}

QFont points(double pointSize, bool bold)
{
    QFont f = base();
    f.setPointSizeF(pointSize);
    f.setBold(bold);
    return f;
}

}  // namespace fonts
