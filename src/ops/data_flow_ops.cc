// Queues (paper 4.6) with TensorFlow's op names, attrs and semantics, in
// both forms TensorFlow graphs contain: the reference form (FIFOQueue,
// QueueEnqueue, ...: the handle is a Ref(string) holding [container, name])
// and the resource form (FIFOQueueV2, QueueEnqueueV2, ...: a resource
// handle). All are stateful: two dequeues are two elements, never one
// common subexpression. Kernels: kernels/data_flow/.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

namespace {

Status RefHandleShape(InferenceContext* c) {
  c->set_output(0, PartialTensorShape({2}));
  return Status::OK();
}

// Components of a dequeued element: the queue's shapes are not known here.
Status DequeueShape(InferenceContext* c) { return UnknownShape(c); }

Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, PartialTensorShape(std::initializer_list<int64_t>{}));
  return Status::OK();
}

}  // namespace

#define FLOWVM_QUEUE_CREATOR(NAME, HANDLE, SHAPE_FN, DOC)  \
  REGISTER_OP(NAME)                                          \
      .Output("handle: " HANDLE)                             \
      .Attr("component_types: list(type) >= 1")              \
      .Attr("shapes: list(shape) >= 0 = []")                 \
      .Attr("capacity: int = -1")                            \
      .Attr("container: string = ''")                        \
      .Attr("shared_name: string = ''")                      \
      .SetIsStateful()                                       \
      .SetShapeFn(SHAPE_FN)                                  \
      .Doc(DOC)

FLOWVM_QUEUE_CREATOR("FIFOQueue", "Ref(string)", RefHandleShape,
                     "A queue that produces elements in first-in first-out order.");
FLOWVM_QUEUE_CREATOR("FIFOQueueV2", "resource", ScalarOutput,
                     "A queue that produces elements in first-in first-out order.");
FLOWVM_QUEUE_CREATOR("PaddingFIFOQueue", "Ref(string)", RefHandleShape,
                     "A FIFOQueue whose dequeue_many pads variable-sized components to the batch's largest.");
FLOWVM_QUEUE_CREATOR("PaddingFIFOQueueV2", "resource", ScalarOutput,
                     "A FIFOQueue whose dequeue_many pads variable-sized components to the batch's largest.");
#undef FLOWVM_QUEUE_CREATOR

#define FLOWVM_RANDOM_SHUFFLE_QUEUE(NAME, HANDLE, SHAPE_FN) \
  REGISTER_OP(NAME)                                          \
      .Output("handle: " HANDLE)                             \
      .Attr("component_types: list(type) >= 1")              \
      .Attr("shapes: list(shape) >= 0 = []")                 \
      .Attr("capacity: int = -1")                            \
      .Attr("min_after_dequeue: int = 0")                    \
      .Attr("seed: int = 0")                                 \
      .Attr("seed2: int = 0")                                \
      .Attr("container: string = ''")                        \
      .Attr("shared_name: string = ''")                      \
      .SetIsStateful()                                       \
      .SetShapeFn(SHAPE_FN)                                  \
      .Doc("A queue that randomizes the order of elements; keeps min_after_dequeue while open.")

FLOWVM_RANDOM_SHUFFLE_QUEUE("RandomShuffleQueue", "Ref(string)", RefHandleShape);
FLOWVM_RANDOM_SHUFFLE_QUEUE("RandomShuffleQueueV2", "resource", ScalarOutput);
#undef FLOWVM_RANDOM_SHUFFLE_QUEUE

#define FLOWVM_QUEUE_OPS(SUFFIX, HANDLE)                                                                  \
  REGISTER_OP("QueueEnqueue" SUFFIX)                                                                       \
      .Input("handle: " HANDLE)                                                                            \
      .Input("components: Tcomponents")                                                                    \
      .Attr("Tcomponents: list(type) >= 1")                                                                \
      .Attr("timeout_ms: int = -1")                                                                        \
      .SetIsStateful()                                                                                     \
      .SetShapeFn(UnknownShape)                                                                            \
      .Doc("Enqueues one element; waits (holding no thread) while the queue is full.");                   \
  REGISTER_OP("QueueEnqueueMany" SUFFIX)                                                                   \
      .Input("handle: " HANDLE)                                                                            \
      .Input("components: Tcomponents")                                                                    \
      .Attr("Tcomponents: list(type) >= 1")                                                                \
      .Attr("timeout_ms: int = -1")                                                                        \
      .SetIsStateful()                                                                                     \
      .SetShapeFn(UnknownShape)                                                                            \
      .Doc("Enqueues the elements of a batch (dimension 0 of every component).");                         \
  REGISTER_OP("QueueDequeue" SUFFIX)                                                                       \
      .Input("handle: " HANDLE)                                                                            \
      .Output("components: component_types")                                                               \
      .Attr("component_types: list(type) >= 1")                                                            \
      .Attr("timeout_ms: int = -1")                                                                        \
      .SetIsStateful()                                                                                     \
      .SetShapeFn(DequeueShape)                                                                            \
      .Doc("Dequeues one element; waits (holding no thread) while the queue is empty.");                  \
  REGISTER_OP("QueueDequeueMany" SUFFIX)                                                                   \
      .Input("handle: " HANDLE)                                                                            \
      .Input("n: int32")                                                                                   \
      .Output("components: component_types")                                                               \
      .Attr("component_types: list(type) >= 1")                                                            \
      .Attr("timeout_ms: int = -1")                                                                        \
      .SetIsStateful()                                                                                     \
      .SetShapeFn(DequeueShape)                                                                            \
      .Doc("Dequeues n elements as one batch; OutOfRange if the queue closes with fewer.");               \
  REGISTER_OP("QueueDequeueUpTo" SUFFIX)                                                                   \
      .Input("handle: " HANDLE)                                                                            \
      .Input("n: int32")                                                                                   \
      .Output("components: component_types")                                                               \
      .Attr("component_types: list(type) >= 1")                                                            \
      .Attr("timeout_ms: int = -1")                                                                        \
      .SetIsStateful()                                                                                     \
      .SetShapeFn(DequeueShape)                                                                            \
      .Doc("Dequeues n elements as one batch, or what is left (at least one) once the queue is closed."); \
  REGISTER_OP("QueueClose" SUFFIX)                                                                         \
      .Input("handle: " HANDLE)                                                                            \
      .Attr("cancel_pending_enqueues: bool = false")                                                       \
      .SetIsStateful()                                                                                     \
      .SetShapeFn(UnknownShape)                                                                            \
      .Doc("Closes the queue: no more enqueues; waiting dequeues get what is left, then OutOfRange.");     \
  REGISTER_OP("QueueSize" SUFFIX)                                                                          \
      .Input("handle: " HANDLE)                                                                            \
      .Output("size: int32")                                                                               \
      .SetIsStateful()                                                                                     \
      .SetShapeFn(ScalarOutput)                                                                            \
      .Doc("The number of elements in the queue.");                                                       \
  REGISTER_OP("QueueIsClosed" SUFFIX)                                                                      \
      .Input("handle: " HANDLE)                                                                            \
      .Output("is_closed: bool")                                                                           \
      .SetIsStateful()                                                                                     \
      .SetShapeFn(ScalarOutput)                                                                            \
      .Doc("Whether the queue is closed.")

FLOWVM_QUEUE_OPS("", "Ref(string)");
FLOWVM_QUEUE_OPS("V2", "resource");
#undef FLOWVM_QUEUE_OPS

}  // namespace flowvm

namespace flowvm {

// Mutexes (TensorFlow's MutexV2 family): exclusive sections of a graph.
REGISTER_OP("MutexV2")
    .Output("resource: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarShape)
    .Doc("A mutex, in a container of its device's resource manager.");

REGISTER_OP("MutexLock")
    .Input("mutex: resource")
    .Output("mutex_lock: variant")
    .SetIsStateful()
    .SetShapeFn(ScalarShape)
    .Doc("Locks the mutex, waiting (without a thread) for its turn; the lock is held until the last copy of "
         "mutex_lock is gone.");

REGISTER_OP("ConsumeMutexLock")
    .Input("mutex_lock: variant")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("Consumes a lock from MutexLock: the mutex is released when this op is done with it.");

}  // namespace flowvm

namespace flowvm {

// Stacks (TensorFlow's StackV2 family): what a while loop's gradient keeps
// of the forward iterations.
REGISTER_OP("StackV2")
    .Input("max_size: int32")
    .Output("handle: resource")
    .Attr("elem_type: type")
    .Attr("stack_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarShape)
    .Doc("A stack of tensors for the step (max_size < 0: unbounded).");

REGISTER_OP("StackPushV2")
    .Input("handle: resource")
    .Input("elem: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("swap_memory: bool = false")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("Pushes elem onto the stack and outputs it.");

REGISTER_OP("StackPopV2")
    .Input("handle: resource")
    .Output("elem: elem_type")
    .Attr("elem_type: type")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("Pops the top of the stack; InvalidArgument if it is empty.");

REGISTER_OP("StackCloseV2")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("Deletes the stack's contents.");

}  // namespace flowvm

namespace flowvm {

// Conditional accumulators (TensorFlow's ConditionalAccumulator family, in
// the reference and the resource form): gradients of one global step are
// summed; a gradient computed at an older step is dropped; a take waits
// (holding no thread) until num_required have arrived, then returns their
// mean (or sum), starts a new sum and advances the accumulator's global
// step. Synchronous training with backup workers (OSDI'16 4.4) is built on
// them (cc/sync_replicas.h). Kernels: kernels/data_flow/accumulator_ops.cc.
#define FLOWVM_ACCUMULATOR_OPS(PREFIX, HANDLE, HANDLE_SHAPE_FN)                                                 \
  REGISTER_OP(PREFIX "ConditionalAccumulator")                                                                  \
      .Output("handle: " HANDLE)                                                                                \
      .Attr("dtype: numbertype")                                                                                \
      .Attr("shape: shape")                                                                                     \
      .Attr("container: string = ''")                                                                           \
      .Attr("shared_name: string = ''")                                                                         \
      .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")                                                        \
      .SetIsStateful()                                                                                          \
      .SetShapeFn(HANDLE_SHAPE_FN)                                                                              \
      .Doc("An accumulator of the gradients of one step (float or double), in a container of its device.");    \
  REGISTER_OP(PREFIX "AccumulatorNumAccumulated")                                                               \
      .Input("handle: " HANDLE)                                                                                 \
      .Output("num_accumulated: int32")                                                                         \
      .SetIsStateful()                                                                                          \
      .SetShapeFn(ScalarOutput)                                                                                 \
      .Doc("How many gradients the accumulator holds for its current step.");                                  \
  REGISTER_OP(PREFIX "AccumulatorSetGlobalStep")                                                                \
      .Input("handle: " HANDLE)                                                                                 \
      .Input("new_global_step: int64")                                                                          \
      .SetIsStateful()                                                                                          \
      .SetShapeFn(UnknownShape)                                                                                 \
      .Doc("Sets the accumulator's global step; gradients of older local steps are dropped from then on.");    \
  REGISTER_OP(PREFIX "AccumulatorApplyGradient")                                                                \
      .Input("handle: " HANDLE)                                                                                 \
      .Input("local_step: int64")                                                                               \
      .Input("gradient: dtype")                                                                                 \
      .Attr("dtype: numbertype")                                                                                \
      .SetIsStateful()                                                                                          \
      .SetShapeFn(UnknownShape)                                                                                 \
      .Doc("Adds a gradient computed at local_step; silently dropped if local_step is older than the "          \
           "accumulator's global step.");                                                                      \
  REGISTER_OP(PREFIX "AccumulatorTakeGradient")                                                                 \
      .Input("handle: " HANDLE)                                                                                 \
      .Input("num_required: int32")                                                                             \
      .Output("average: dtype")                                                                                 \
      .Attr("dtype: numbertype")                                                                                \
      .SetIsStateful()                                                                                          \
      .SetShapeFn(UnknownShape)                                                                                 \
      .Doc("Waits until at least num_required gradients are in, returns their mean (or sum), resets the "      \
           "accumulator and advances its global step by one.")

FLOWVM_ACCUMULATOR_OPS("", "Ref(string)", RefHandleShape);
FLOWVM_ACCUMULATOR_OPS("Resource", "resource", ScalarOutput);
#undef FLOWVM_ACCUMULATOR_OPS

}  // namespace flowvm
