"""tf.app.run: parses the flags, then runs main and exits with its status."""
import sys

from flowvm.tf.platform import flags as _flags


def run(main=None, argv=None):
    """Parses argv (sys.argv by default) into tf.flags.FLAGS and calls
    sys.exit(main(remaining argv)); main defaults to __main__.main. An
    unknown or malformed flag prints the error and exits with status 1."""
    args = list(sys.argv if argv is None else argv)
    try:
        remaining = _flags.FLAGS(args, known_only=False)
    except _flags.Error as e:
        sys.stderr.write("FATAL Flags parsing error: %s\nPass --helpfull to see help on flags.\n" % e)
        sys.exit(1)
    if main is None:
        main = getattr(sys.modules["__main__"], "main", None)
        if main is None:
            raise ValueError("tf.app.run: no main function given and __main__ defines none")
    sys.exit(main(remaining))
