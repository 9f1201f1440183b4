"""Says which variant of it was installed."""
try:
    from vdemo._build import BUILD, CFLAGS
except ImportError:  # run from the source tree
    BUILD, CFLAGS = "source", ""
