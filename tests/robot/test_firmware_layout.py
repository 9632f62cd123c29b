"""The firmware's constants live in config.h alone: the built-in model and the host agree with
them, and the sources are laid out one layer a file."""

from __future__ import annotations

from cubebot.robot import Rig, RigModel
from cubebot.robot.avr import FIRMWARE_SOURCE, config, config_int, microsteps_per_quarter


def test_the_six_motor_model_is_the_firmwares_config() -> None:
    model = RigModel.load("six-motor")
    per_rev = 4 * model.steps_per_quarter * model.microsteps
    assert config()["RIG_FACES"] == model.faces
    assert config_int("STEPS_PER_QUARTER") == model.steps_per_quarter
    assert config_int("MICROSTEPS") == model.microsteps
    assert bool(config_int("PARALLEL_OPPOSITE")) == model.parallel_opposite
    assert config_int("MAX_SPEED_SPS") == round(model.max_speed * per_rev)
    assert config_int("ACCEL_SPS2") == round(model.acceleration * per_rev)
    assert config_int("SETTLE_MS") == round(model.settle_time * 1000)
    assert microsteps_per_quarter() == model.microsteps_per_quarter


def test_the_serial_speed_is_exact_at_16_mhz_and_the_hosts_default() -> None:
    baud, f_cpu = config_int("BAUD"), 16_000_000
    ubrr = (f_cpu + 4 * baud) // (8 * baud) - 1  # U2X, as uart.c computes it
    assert f_cpu / (8 * (ubrr + 1)) == baud  # 0 % error (115200 would be 2.1 % off)
    assert Rig("loop://").baudrate == baud


def test_the_firmware_is_one_layer_a_file_and_no_constant_is_copied_into_python() -> None:
    for name in ("config.h", "pins.h", "uart.c", "frame.c", "protocol.c", "job.c", "motion.c",
                 "main.c"):
        assert (FIRMWARE_SOURCE / name).is_file(), name
    avr_py = (FIRMWARE_SOURCE.parents[1] / "avr.py").read_text()
    for name in ("STEPS_PER_QUARTER", "MICROSTEPS", "MAX_SPEED_SPS", "ACCEL_SPS2"):
        assert f"{name} =" not in avr_py and f"= {config()[name]}" not in avr_py
    # only the interrupt-side files touch the registers they own
    assert "UDR0" not in (FIRMWARE_SOURCE / "protocol.c").read_text()
    assert "OCR1A" not in (FIRMWARE_SOURCE / "protocol.c").read_text()
