"""Drop-in layers over the vwheel engine for the APIs other tools call."""
