
from glob import glob

from setuptools import find_packages, setup

PACKAGE = "sim_bridge"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
        ("share/" + PACKAGE + "/hook", glob("hook/*")),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="soccersim developers",
    maintainer_email="dev@soccersim.invalid",
    description="Legacy TCP bridge: SimSpark and rcsssmj S-expression dialects, agent and monitor ports, service port.",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
    entry_points={"console_scripts": ["bridge_node = sim_bridge.ros.standalone:main"]},
)
