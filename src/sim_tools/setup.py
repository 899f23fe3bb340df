from setuptools import find_packages, setup

PACKAGE = "sim_tools"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="soccersim developers",
    maintainer_email="dev@soccersim.invalid",
    description="Tools around the server: launch runner, demo team, field pictures.",
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
)
