"""Run by run_test.cmake with PYTHONPATH set to the install prefix's
site-packages only: the installed package imports from there, finds
libflowvm by itself and runs a step."""
import sys

import flowvm
import flowvm.compat.v1 as tf

prefix = sys.argv[1]
assert flowvm.__file__.startswith(prefix), "imported %s, not the installed package under %s" % (flowvm.__file__, prefix)
x = tf.placeholder(tf.float32, shape=[2])
y = x * 3.0
with tf.Session() as sess:
    print("python", list(sess.run(y, {x: [1.0, 2.0]})))
