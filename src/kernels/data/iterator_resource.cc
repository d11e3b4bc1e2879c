#include "kernels/data/iterator_resource.h"

#include <atomic>
#include <condition_variable>
#include <deque>

namespace flowvm::data {

namespace {

// One pass over a dataset: its iterator tree and what the tree shares.
struct Pass {
  Pass(DatasetPtr d, std::shared_ptr<SeedGenerators> s) : dataset(std::move(d)), seeds(std::move(s)) {
    ctx.cancellation = &cancellation;
    ctx.seeds = seeds.get();
  }
  ~Pass() {
    // Wake whatever the tree waits on before tearing it down (its
    // destructors join their threads).
    cancellation.StartCancel(errors::Cancelled("the iterator over ", dataset->DebugString(), " was destroyed"));
    std::lock_guard<std::mutex> lock(mu);
    iterator.reset();
  }
  const DatasetPtr dataset;
  const std::shared_ptr<SeedGenerators> seeds;  // the resource's, across passes
  CancellationManager cancellation;
  IteratorContext ctx;
  std::mutex mu;                                // one GetNext at a time
  std::unique_ptr<IteratorBase> iterator;       // guarded by mu
  std::deque<std::vector<Tensor>> stash;        // produced for cancelled requests; guarded by mu
  bool ended = false;                           // guarded by mu
};

}  // namespace

struct IteratorResource::Core {
  struct Request {
    GetNextDone done;
    std::atomic<bool> finished{false};
    CancellationManager* step_cancellation = nullptr;
    CancellationManager::Token token = CancellationManager::kInvalidToken;

    // Runs done unless the step's cancellation already did (then the
    // step may be gone: its cancellation manager is not touched).
    bool Finish(const Status& s, std::vector<Tensor> element, bool end) {
      if (finished.exchange(true)) return false;
      if (step_cancellation != nullptr) step_cancellation->Deregister(token);
      done(s, std::move(element), end);
      return true;
    }
    // From the step's cancellation callback.
    void Cancel(const Status& s) {
      if (!finished.exchange(true)) done(s, {}, false);
    }
  };

  Core(std::string name, DataTypeVector types, std::vector<PartialTensorShape> shapes)
      : name(std::move(name)), types(std::move(types)), shapes(std::move(shapes)) {}

  // The next element of `pass` (its stash first), with `pass->mu` held.
  Status NextLocked(Pass* pass, std::vector<Tensor>* element, bool* end) {
    *end = false;
    if (!pass->stash.empty()) {
      *element = std::move(pass->stash.front());
      pass->stash.pop_front();
      return Status::OK();
    }
    if (pass->ended) {
      *end = true;
      return Status::OK();
    }
    FLOWVM_RETURN_IF_ERROR(pass->iterator->GetNext(element, end));
    if (*end) {
      pass->ended = true;
      return Status::OK();
    }
    return Check(*pass, *element);
  }

  Status Check(const Pass& pass, const std::vector<Tensor>& element) const {
    if (ElementMatches(element, types, shapes)) return Status::OK();
    return CheckElement(element, types, shapes, pass.dataset->DebugString() + " (read by iterator '" + name + "')");
  }

  void Serve(const std::shared_ptr<Request>& request, const std::shared_ptr<Pass>& pass) {
    if (request->finished.load()) return;  // cancelled while queued
    Status s;
    std::vector<Tensor> element;
    bool end = false;
    if (pass == nullptr) {
      s = errors::FailedPrecondition(kUninitializedIteratorMessage);
    } else {
      std::lock_guard<std::mutex> lock(pass->mu);
      s = NextLocked(pass.get(), &element, &end);
    }
    if (request->Finish(s, element, end)) return;
    // The step gave up waiting: keep the element for the next request.
    if (s.ok() && !end) {
      std::lock_guard<std::mutex> lock(pass->mu);
      pass->stash.push_back(std::move(element));
    }
  }

  void WorkerLoop() {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      cv.wait(lock, [this] { return shutdown || !queue.empty(); });
      if (queue.empty()) return;  // shut down
      std::shared_ptr<Request> request = std::move(queue.front());
      queue.pop_front();
      std::shared_ptr<Pass> p = shutdown ? nullptr : pass;
      busy = true;
      lock.unlock();
      if (shutdown) {
        request->Finish(errors::Cancelled("iterator '", name, "' was destroyed"), {}, false);
      } else {
        Serve(request, p);
      }
      p.reset();  // the last reference may go here: not under mu
      lock.lock();
      busy = false;
    }
  }

  const std::string name;
  const DataTypeVector types;
  const std::vector<PartialTensorShape> shapes;

  std::mutex mu;
  std::condition_variable cv;
  std::shared_ptr<Pass> pass;                    // null until MakeIterator
  const std::shared_ptr<SeedGenerators> seeds = std::make_shared<SeedGenerators>();
  std::deque<std::shared_ptr<Request>> queue;
  bool busy = false;
  bool shutdown = false;
  bool worker_started = false;

  enum class Init { kNone, kRunning, kDone } init = Init::kNone;
  Status init_status;
  std::vector<std::function<void(const Status&)>> init_waiters;
};

IteratorResource::IteratorResource(std::string name, DataTypeVector types, std::vector<PartialTensorShape> shapes)
    : name_(name), types_(types), shapes_(shapes),
      core_(std::make_shared<Core>(std::move(name), std::move(types), std::move(shapes))) {}

IteratorResource::~IteratorResource() {
  std::shared_ptr<Pass> pass;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    core_->shutdown = true;
    pass = std::move(core_->pass);
    core_->cv.notify_all();
  }
  if (pass != nullptr) pass->cancellation.StartCancel();
  pass.reset();
  if (worker_.joinable()) {
    // The worker itself may drop the last reference (inside a done
    // callback); it then finishes on its own, holding the core.
    if (worker_.get_id() == std::this_thread::get_id()) {
      worker_.detach();
    } else {
      worker_.join();
    }
  }
}

void IteratorResource::OnContainerCleanup() {
  std::shared_ptr<Pass> pass;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    pass = core_->pass;
  }
  if (pass != nullptr) pass->cancellation.StartCancel(errors::Cancelled("iterator '", name_, "' was reset"));
}

Status IteratorResource::SetIteratorFromDataset(DatasetPtr dataset) {
  FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*dataset, types_, shapes_, DebugString()));
  auto pass = std::make_shared<Pass>(std::move(dataset), core_->seeds);
  FLOWVM_ASSIGN_OR_RETURN(pass->iterator, pass->dataset->MakeIterator(&pass->ctx));
  std::shared_ptr<Pass> old;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    if (core_->shutdown) return errors::Cancelled(DebugString(), " was destroyed");
    old = std::move(core_->pass);
    core_->pass = std::move(pass);
  }
  // A GetNext still running on the old pass returns soon; the pass goes
  // with its last user.
  if (old != nullptr) old->cancellation.StartCancel(errors::Cancelled(DebugString(), " was reinitialized"));
  return Status::OK();
}

bool IteratorResource::initialized() const {
  std::lock_guard<std::mutex> lock(core_->mu);
  return core_->pass != nullptr;
}

std::string IteratorResource::DatasetDescription() const {
  std::lock_guard<std::mutex> lock(core_->mu);
  return core_->pass == nullptr ? std::string() : core_->pass->dataset->DebugString();
}

void IteratorResource::GetNextAsync(CancellationManager* step_cancellation, GetNextDone done) {
  std::unique_lock<std::mutex> lock(core_->mu);
  if (core_->pass == nullptr) {
    lock.unlock();
    done(errors::FailedPrecondition(kUninitializedIteratorMessage), {}, false);
    return;
  }
  // The fast path: nothing queued and an element at hand.
  if (core_->queue.empty() && !core_->busy) {
    std::shared_ptr<Pass> pass = core_->pass;
    std::unique_lock<std::mutex> pass_lock(pass->mu, std::try_to_lock);
    if (pass_lock.owns_lock() && !pass->ended) {
      std::vector<Tensor> element;
      bool ready = false;
      if (!pass->stash.empty()) {
        element = std::move(pass->stash.front());
        pass->stash.pop_front();
        ready = true;
      } else if (pass->iterator->TryGetNextReady(&element)) {
        ready = true;
      }
      if (ready) {
        pass_lock.unlock();
        lock.unlock();
        Status s = core_->Check(*pass, element);
        done(s, std::move(element), false);
        return;
      }
    }
  }
  auto request = std::make_shared<Core::Request>();
  request->done = std::move(done);
  if (step_cancellation != nullptr) {
    request->step_cancellation = step_cancellation;
    std::weak_ptr<Core::Request> weak = request;
    request->token = step_cancellation->Register([weak, step_cancellation] {
      std::shared_ptr<Core::Request> r = weak.lock();
      if (r == nullptr) return;
      Status reason = step_cancellation->reason();
      r->Cancel(reason.ok() ? errors::Cancelled("the step was cancelled while IteratorGetNext waited") : reason);
    });
    if (request->token == CancellationManager::kInvalidToken) {
      lock.unlock();
      Status reason = step_cancellation->reason();
      request->Cancel(reason.ok() ? errors::Cancelled("the step was cancelled") : reason);
      return;
    }
  }
  core_->queue.push_back(std::move(request));
  if (!core_->worker_started) {
    core_->worker_started = true;
    std::shared_ptr<Core> core = core_;
    worker_ = std::thread([core] { core->WorkerLoop(); });
  }
  core_->cv.notify_all();
}

void IteratorResource::InitializeOnce(const std::function<void(std::function<void(const Status&)>)>& init,
                                      std::function<void(const Status&)> done) {
  {
    std::unique_lock<std::mutex> lock(core_->mu);
    if (core_->init == Core::Init::kDone) {
      Status s = core_->init_status;
      lock.unlock();
      done(s);
      return;
    }
    core_->init_waiters.push_back(std::move(done));
    if (core_->init == Core::Init::kRunning) return;
    core_->init = Core::Init::kRunning;
  }
  std::shared_ptr<Core> core = core_;
  init([core](const Status& s) {
    std::vector<std::function<void(const Status&)>> waiters;
    {
      std::lock_guard<std::mutex> lock(core->mu);
      core->init = Core::Init::kDone;
      core->init_status = s;
      waiters.swap(core->init_waiters);
    }
    for (auto& w : waiters) w(s);
  });
}

}  // namespace flowvm::data
