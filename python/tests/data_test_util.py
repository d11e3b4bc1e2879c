"""Helpers of the tf.data tests: TFRecord files written here, in Python,
from the format's definition (a little-endian uint64 length, the masked
CRC-32C of the length, the data, the masked CRC-32C of the data), so
that reading them tests flowvm's reader against an independent writer;
and `drain`, which runs an iterator's get_next to the end."""
import gzip
import struct
import zlib

import flowvm.compat.v1 as tf


def drain(sess, nxt, limit=10000):
    """Every value `nxt` gives until OutOfRangeError."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(nxt))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("more than %d elements" % limit)


def _crc32c_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord_bytes(records):
    out = bytearray()
    for r in records:
        length = struct.pack("<Q", len(r))
        out += length + struct.pack("<I", masked_crc(length)) + r + struct.pack("<I", masked_crc(r))
    return bytes(out)


def write_tfrecords(path, records, compression=""):
    data = tfrecord_bytes(records)
    if compression == "GZIP":
        data = gzip.compress(data)
    elif compression == "ZLIB":
        data = zlib.compress(data)
    with open(path, "wb") as f:
        f.write(data)
    return path
