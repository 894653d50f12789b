#include "ui/document/Autosaver.h"

#include "ui/document/PlanDocument.h"

Autosaver::Autosaver(PlanDocument* document, QString directory, QObject* parent)
    : QObject(parent)
    , doc_(document)
    , store_(std::move(directory))
{
    pause_.setSingleShot(true);
    pause_.setInterval(kPauseMilliseconds);
    connect(&pause_, &QTimer::timeout, this, &Autosaver::saveNow);
    connect(doc_, &PlanDocument::planChanged, this, &Autosaver::onChanged);
    connect(doc_, &PlanDocument::fileStateChanged, this, &Autosaver::onChanged);
    sinceWrite_.start();
}

void Autosaver::onChanged()
{
    if (!doc_->isModified()) {
        clear();
        return;
    }
    if (!pendingWrite_)
        sinceWrite_.restart();
    pendingWrite_ = true;
    // A steady stream of edits would keep postponing the write: cap the delay.
    if (sinceWrite_.elapsed() >= kMaxDelayMilliseconds)
        saveNow();
    else
        pause_.start();
}

void Autosaver::saveNow()
{
    pause_.stop();
    pendingWrite_ = false;
    if (!doc_->isModified())
        return;
    // A failed write keeps the previous copy; the next change tries again. Either way the window
    // hears of a change of state, so a failing autosave is never silent.
    QString error;
    const bool ok = store_.write(doc_->plan(), doc_->filePath(), &error);
    sinceWrite_.restart();
    if (ok != lastError_.isEmpty() || (!ok && error != lastError_)) {
        lastError_ = ok ? QString() : (error.isEmpty() ? tr("unknown reason") : error);
        emit statusChanged(lastError_);
    }
}

void Autosaver::clear()
{
    pause_.stop();
    pendingWrite_ = false;
    store_.clear();
}
