// _Send and _Recv: the pair the partitioner puts on every edge that crosses
// devices (paper 3.2, Figure 4). Names and attrs follow TensorFlow's
// sendrecv_ops.cc, so partition graphs read like TensorFlow's.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

REGISTER_OP("_Send")
    .Input("tensor: T")
    .Attr("T: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("Sends `tensor` to recv_device under the rendezvous key of tensor_name.");

REGISTER_OP("_Recv")
    .Output("tensor: tensor_type")
    .Attr("tensor_type: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("Receives the tensor that the matching _Send sent; waits without holding a thread.");

}  // namespace flowvm
