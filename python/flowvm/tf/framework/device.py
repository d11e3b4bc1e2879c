"""Device names as the graph stores them (TensorFlow's framework/device.py):
the canonical form of a name and the merge of nested tf.device scopes."""
from flowvm.tf.framework.device_spec import DeviceSpec


def canonical_name(device):
    if device is None:
        return ""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


def merge_device(outer, inner):
    """The device of a node whose outer scope asks for `outer` and inner
    scope for `inner` (strings): inner fields win, the rest come from outer."""
    if not inner:
        return outer or ""
    if not outer:
        return canonical_name(inner)
    return DeviceSpec.from_string(outer).merge_from(DeviceSpec.from_string(inner)).to_string()
