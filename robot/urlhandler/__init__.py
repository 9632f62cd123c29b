"""pyserial URL handlers of the robot package (``rigsim://``), found through
``serial.protocol_handler_packages``."""
