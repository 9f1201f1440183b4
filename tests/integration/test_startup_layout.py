"""The vwheel executable is laid out for start-up (cmake/StartupLayout.cmake): the functions its
short commands run (apps/vwheel/startup.order, from scripts/startup-order) sit together at the
start of the text, in the file's order. What it buys is timed by bench/startup.sh; these tests
check the layout itself, from the binary's symbol table, and that the order still names the
code's functions."""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ORDER = ROOT / "apps" / "vwheel" / "startup.order"


def symbols(binary):
    """name -> (address, size) of the binary's functions."""
    out = subprocess.run(["nm", "--defined-only", "--print-size", str(binary)], check=True,
                         capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            table[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return table


def text_start(binary):
    out = subprocess.run(["readelf", "-SW", str(binary)], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 3 and fields[1] == ".text":
            return int(fields[3], 16)
    raise AssertionError(f"no .text section in {binary}")


@pytest.fixture(scope="module")
def layout(vwheel_bin):
    if shutil.which("ld.lld") is None:
        pytest.skip("lld is not installed (scripts/bootstrap installs it): vwheel is linked without its order")
    order = ORDER.read_text().split()
    table = symbols(vwheel_bin)
    return order, table, text_start(vwheel_bin)


def test_the_order_names_the_code_s_functions(layout):
    order, table, _ = layout
    assert len(order) > 200, f"{ORDER} names only {len(order)} functions"
    missing = [name for name in order if name not in table]
    # A renamed or removed function falls out of the order; a few are clones (.isra, .cold) whose
    # names move with the compiler's choices. Past a tenth, the order no longer describes start-up.
    assert len(missing) <= len(order) // 10, (
        f"{len(missing)} of the {len(order)} functions in {ORDER.name} are not in the binary "
        f"(first: {missing[:3]}); rerun scripts/startup-order")


def test_the_ordered_functions_come_first_and_together(layout):
    order, table, start = layout
    placed = [table[name] for name in order if name in table]
    addresses = [address for address, _ in placed]
    # In the file's order: each function after the one before it. A few may not be: a library
    # compiled without a section per function (libgcc's unwinder, libgcc_eh.a) moves as one block,
    # placed where the first of its functions is named (none today; 7 of 762 when `--version`
    # still threw through CLI11).
    out_of_order = sum(1 for a, b in zip(addresses, addresses[1:]) if b < a)
    assert out_of_order <= len(addresses) // 50, f"{out_of_order} functions placed before the one the order puts first"
    # At the start of the text, and together: the span they cover is their own size, the padding
    # that aligns each, and what shares their sections or names (same-named local functions of
    # other files are placed beside them): 822 KB for 559 KB of code today, not the 6 MB of text
    # they were spread over before.
    total = sum(size for _, size in placed)
    span = max(a + size for a, size in placed) - min(addresses)
    assert min(addresses) - start < 64 * 1024, f"the first ordered function is {min(addresses) - start} bytes into the text"
    assert span < total * 2 + 64 * 1024, f"the ordered functions span {span} bytes for {total} of code"
