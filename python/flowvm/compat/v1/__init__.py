"""TensorFlow 1.x's Python API over flowvm's runtime.

    import flowvm.compat.v1 as tf

Graphs, sessions, variables, training, control flow, queues, summaries and
clusters use TensorFlow 1.x's names, signatures and defaults; programs
written for it run with only the import line changed (or unchanged, under
`python3 -m flowvm.tf1 SCRIPT.py`).
"""
from flowvm._alias import install_prefix_alias as _install_prefix_alias

# flowvm.compat.v1.python.<X> is the implementation module flowvm.tf.<X>, so
# TensorFlow's internal import paths (`from tensorflow.python.framework
# import ops` under the runner) name the same module objects.
_install_prefix_alias("flowvm.compat.v1.python", "flowvm.tf")

# The implementation modules, in dependency order; each one's __all__ is
# what it adds to this namespace.
from flowvm.tf.framework.dtypes import *  # noqa: F401,F403
from flowvm.tf.framework.dtypes import DType, as_dtype  # noqa: F401
from flowvm.tf.framework.tensor_shape import TensorShape, Dimension, dimension_value  # noqa: F401
from flowvm.tf.framework.device_spec import DeviceSpec  # noqa: F401
from flowvm.tf.framework.ops import (  # noqa: F401
    Graph, Operation, Tensor, GraphKeys, get_default_graph, reset_default_graph, name_scope, op_scope, device,
    control_dependencies, colocate_with, add_to_collection, add_to_collections, get_collection,
    get_collection_ref, get_default_session, convert_to_tensor, convert_n_to_tensor,
    convert_to_tensor_or_indexed_slices, register_tensor_conversion_function, executing_eagerly,
    enable_eager_execution, disable_eager_execution, get_name_scope, RegisterGradient, NotDifferentiable,
    NoGradient, no_gradient)
from flowvm.tf.framework.constant_op import constant  # noqa: F401
from flowvm.tf.framework.random_seed import set_random_seed, get_seed  # noqa: F401
from flowvm.tf.client.session import Session, InteractiveSession  # noqa: F401
from flowvm.tf.ops.gradients_impl import gradients  # noqa: F401
from flowvm.tf.framework.importer import import_graph_def  # noqa: F401
from flowvm.tf.framework.tensor_util import make_tensor_proto, make_ndarray  # noqa: F401

from flowvm.config_pb2 import ConfigProto, RunOptions, RunMetadata, GPUOptions, GraphOptions  # noqa: F401
from flowvm.config_pb2 import OptimizerOptionsProto as OptimizerOptions  # noqa: F401
from flowvm.graph_pb2 import GraphDef  # noqa: F401
from flowvm.node_def_pb2 import NodeDef  # noqa: F401
from flowvm.attr_value_pb2 import AttrValue, NameAttrList  # noqa: F401
from flowvm.tensor_pb2 import TensorProto  # noqa: F401
from flowvm.summary_pb2 import Summary, SummaryMetadata, HistogramProto  # noqa: F401
from flowvm.event_pb2 import Event, SessionLog, LogMessage  # noqa: F401
from flowvm.op_def_pb2 import OpDef  # noqa: F401
from flowvm.meta_graph_pb2 import MetaGraphDef, CollectionDef, TensorInfo, SignatureDef, AssetFileDef  # noqa: F401

from flowvm.compat.v1 import errors, dtypes, raw_ops  # noqa: F401,E402

newaxis = None
AUTO_REUSE = "AUTO_REUSE"  # replaced by variable_scope's object when that module loads


def disable_v2_behavior():
    """TensorFlow 2's switch back to 1.x behaviour: flowvm.compat.v1 is 1.x already."""


def enable_v2_behavior():
    raise NotImplementedError("flowvm.compat.v1 is TensorFlow 1.x's API; TensorFlow 2 behaviour is not available")


def disable_resource_variables():
    """1.x's reference variables are the default here."""


__version__ = "1.15.0"
VERSION = __version__
GRAPH_DEF_VERSION = 27
COMPILER_VERSION = "flowvm"

# Tensor ops (math, arrays, random numbers); importing them installs the
# Tensor operators and the conversion of lists holding tensors.
from flowvm.tf.ops.math_ops import *  # noqa: F401,F403,E402
from flowvm.tf.ops.array_ops import *  # noqa: F401,F403,E402
from flowvm.tf.ops.random_ops import *  # noqa: F401,F403,E402
from flowvm.compat.v1 import math, random, linalg, nn, image  # noqa: F401,E402

# Variables, initializers, variable scopes.
from flowvm.tf.ops.variables import *  # noqa: F401,F403,E402
from flowvm.tf.ops.variables import Variable, VariableV1  # noqa: F401,E402
from flowvm.tf.ops.init_ops import (  # noqa: F401,E402
    zeros_initializer, ones_initializer, constant_initializer, random_uniform_initializer,
    random_normal_initializer, truncated_normal_initializer, uniform_unit_scaling_initializer,
    variance_scaling_initializer, orthogonal_initializer, glorot_uniform_initializer, glorot_normal_initializer)
from flowvm.tf.ops.variable_scope import (  # noqa: F401,E402
    VariableScope, variable_scope, variable_op_scope, get_variable_scope, get_variable, get_local_variable,
    no_regularizer, AUTO_REUSE, enable_resource_variables, resource_variables_enabled)
from flowvm.compat.v1 import initializers  # noqa: F401,E402
from flowvm.compat.v1 import train  # noqa: F401,E402
from flowvm.compat.v1 import summary  # noqa: F401,E402
# Control flow, queues, tf.app/flags/logging/gfile.
from flowvm.compat.v1 import app, flags, logging, gfile  # noqa: F401,E402
from flowvm import compat  # noqa: F401,E402 - tf.compat.v1 is this namespace
from flowvm.tf.ops.control_flow_ops import (  # noqa: F401,E402,A004
    cond, case, while_loop, group, tuple, no_op, with_dependencies, Assert, Print)
from flowvm.tf.ops.control_flow_ops import print_v2 as print  # noqa: F401,E402,A004
from flowvm.tf.ops.data_flow_ops import QueueBase, FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue  # noqa: F401,E402
from flowvm.tf.ops.tensor_array_ops import TensorArray  # noqa: F401,E402
from flowvm.tf.ops.functional_ops import scan, map_fn, foldl, foldr  # noqa: F401,E402
from flowvm.tf.ops.script_ops import py_func, numpy_function  # noqa: F401,E402

# Layers, losses and metrics.
from flowvm.compat.v1 import layers, losses, metrics  # noqa: F401,E402
# Input pipelines: tf.data, and decoding what they read.
from flowvm.compat.v1 import data, io  # noqa: F401,E402
from flowvm.tf.ops.parsing_ops import decode_raw, decode_csv, read_file, write_file, matching_files  # noqa: F401,E402
# tf.contrib: only tf.contrib.rnn.
from flowvm.compat.v1 import contrib  # noqa: F401,E402
