from glob import glob

from setuptools import find_packages, setup

PACKAGE = "sim_physics"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
        ("share/" + PACKAGE + "/worlds", glob("worlds/*.sdf") + glob("worlds/*.json") + glob("worlds/*.xml")),
        ("share/" + PACKAGE + "/worlds/models", glob("worlds/models/*.sdf")),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="soccersim developers",
    maintainer_email="dev@soccersim.invalid",
    description="The simulated world: physics engines (ODE, gz-physics, MuJoCo) over one engine core, "
                "the world and model files they load, and the scene monitors draw.",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
    entry_points={"console_scripts": []},
)
