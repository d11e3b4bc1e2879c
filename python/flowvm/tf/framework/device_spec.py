"""tf.DeviceSpec: parsing and merging device names
("/job:ps/replica:0/task:1/device:CPU:0", "/cpu:0", "/gpu:1", ...)."""


class DeviceSpec(object):
    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = device_type
        self.device_index = device_index

    @staticmethod
    def from_string(spec):
        return DeviceSpec().parse_from_string(spec or "")

    def parse_from_string(self, spec):
        for part in (spec or "").split("/"):
            if not part:
                continue
            fields = part.split(":")
            key = fields[0].lower()
            if key == "job" and len(fields) == 2:
                self.job = fields[1]
            elif key == "replica" and len(fields) == 2:
                self.replica = int(fields[1])
            elif key == "task" and len(fields) == 2:
                self.task = int(fields[1])
            elif key == "device" and len(fields) >= 2:
                self.device_type = fields[1].upper() if fields[1].lower() in ("cpu", "gpu") else fields[1]
                if len(fields) == 3:
                    self.device_index = None if fields[2] == "*" else int(fields[2])
            elif key in ("cpu", "gpu") and len(fields) == 2:
                self.device_type = key.upper()
                self.device_index = None if fields[1] == "*" else int(fields[1])
            else:
                raise ValueError("Unknown attribute: '%s' in '%s'" % (part, spec))
        return self

    def merge_from(self, other):
        if other.job is not None:
            self.job = other.job
        if other.replica is not None:
            self.replica = other.replica
        if other.task is not None:
            self.task = other.task
        if other.device_type is not None:
            self.device_type = other.device_type
        if other.device_index is not None:
            self.device_index = other.device_index
        return self

    def make_merged_spec(self, other):
        return DeviceSpec(self.job, self.replica, self.task, self.device_type, self.device_index).merge_from(other)

    def to_string(self):
        s = ""
        if self.job is not None:
            s += "/job:" + self.job
        if self.replica is not None:
            s += "/replica:%d" % self.replica
        if self.task is not None:
            s += "/task:%d" % self.task
        if self.device_type is not None:
            s += "/device:%s:%s" % (self.device_type, "*" if self.device_index is None else self.device_index)
        return s

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return "DeviceSpec(%r)" % self.to_string()

