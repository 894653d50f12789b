#include "ui/derivation/DerivationView.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QPushButton>
#include <QShowEvent>
#include <QVBoxLayout>

#include "render/report/DerivationHtml.h"
#include "ui/derivation/DerivationList.h"
#include "ui/document/PlanDocument.h"

DerivationView::DerivationView(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
    , section_(new QComboBox(this))
    , list_(new DerivationList(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    section_->addItem(tr("All sections"), -1);
    const auto sections = trainplan::derive(doc_->analysis());
    for (int i = 0; i < int(sections.size()); ++i)
        section_->addItem(QString::fromStdString(sections[size_t(i)].title), i);
    connect(section_, &QComboBox::activated, this, [this] {
        list_->setHighlightedSteps({});  // a section picked by hand: the card's steps are done
        refresh();
    });
    bar->addWidget(section_, 1);
    auto* copyMd = new QPushButton(tr("Copy Markdown"), this);
    auto* copyText = new QPushButton(tr("Copy text"), this);
    copyMd->setToolTip(tr("Copy every step as Markdown, for notes and design docs"));
    connect(copyMd, &QPushButton::clicked, this, &DerivationView::copyMarkdown);
    connect(copyText, &QPushButton::clicked, this, &DerivationView::copyPlainText);
    bar->addWidget(copyMd);
    bar->addWidget(copyText);
    layout->addLayout(bar);
    layout->addWidget(list_, 1);
    setMinimumSize(300, 160);
    connect(doc_, &PlanDocument::planChanged, this, &DerivationView::onPlanChanged);
    refresh();
}

void DerivationView::onPlanChanged()
{
    if (isVisible())
        refresh();
    else
        stale_ = true;
}

void DerivationView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (stale_)
        refresh();
}

void DerivationView::showSection(int index)
{
    section_->setCurrentIndex(section_->findData(index));
    refresh();
}

bool DerivationView::showSteps(const QStringList& stepIds)
{
    showSection(-1);
    list_->setHighlightedSteps(stepIds);
    for (const QString& id : stepIds)
        if (list_->scrollToStep(id))
            return true;
    return false;
}

void DerivationView::refresh()
{
    stale_ = false;
    list_->setSections(trainplan::derive(doc_->analysis()), section_->currentData().toInt());
}

QString DerivationView::html() const
{
    return derivationhtml::render(trainplan::derive(doc_->analysis()), section_->currentData().toInt());
}

QString DerivationView::markdown() const
{
    return QString::fromStdString(trainplan::derivationToMarkdown(trainplan::derive(doc_->analysis())));
}

QString DerivationView::plainText() const
{
    return QString::fromStdString(trainplan::derivationToText(trainplan::derive(doc_->analysis())));
}

void DerivationView::copyMarkdown() const
{
    QApplication::clipboard()->setText(markdown());
}

void DerivationView::copyPlainText() const
{
    QApplication::clipboard()->setText(plainText());
}
