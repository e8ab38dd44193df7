"""`cmake --install` and the Debian package: the installed command trains, the installed module
imports and runs, and the package declares what it needs."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BUILD = os.environ.get("DTRAIN_BUILD_DIR", "")


def run(args, **kwargs):
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            **kwargs)
    if result.returncode != 0:
        raise AssertionError("%s exited with %d:\n%s" % (args, result.returncode, result.stdout))
    return result.stdout


@unittest.skipUnless(BUILD, "DTRAIN_BUILD_DIR (ctest sets it) names the build to install")
class Installed(unittest.TestCase):

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="dtrain_install_")
        self.addCleanup(shutil.rmtree, self.root)

    def test_installed_command_and_module_run(self):
        run(["cmake", "--install", BUILD, "--prefix", "/usr"],
            env=dict(os.environ, DESTDIR=self.root))
        usr = os.path.join(self.root, "usr")
        command = os.path.join(usr, "bin", "dtrain")
        self.assertIn("dtrain 0.", run([command, "version"]))
        models = os.path.join(usr, "share", "dtrain", "models")
        self.assertIn("lenet_train_test.prototxt",
                      os.listdir(os.path.join(models, "lenet_fashion")))
        self.assertIn("python.md", os.listdir(os.path.join(usr, "share", "doc", "dtrain")))
        # The command checks a shipped net; the module, imported from the installed folder
        # alone, builds and runs a net.
        model = os.path.join(models, "cifar10_quick", "cifar10_quick_train_test.prototxt")
        self.assertIn("conv1", run([command, "check", "--model=" + model]))
        version = "python%d.%d" % sys.version_info[:2]
        packages = os.path.join(usr, "lib", version, "dist-packages")
        deploy = os.path.join(self.root, "deploy.prototxt")
        with open(deploy, "w") as f:
            f.write('layer { name: "data" type: "Input" top: "data" '
                    'input_param { shape { dim: 2 dim: 3 dim: 8 dim: 8 } } }\n'
                    'layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" '
                    'convolution_param { num_output: 4 kernel_size: 3 } }\n'
                    'layer { name: "ip1" type: "InnerProduct" bottom: "conv1" top: "ip1" '
                    'inner_product_param { num_output: 5 } }\n')
        script = ("import dtrain, sys; assert dtrain.__file__.startswith(sys.argv[1]); "
                  "net = dtrain.Net(sys.argv[2], phase=dtrain.TEST); "
                  "print(list(net.params), net.forward()['ip1'].shape)")
        output = run([sys.executable, "-c", script, packages, deploy],
                     env=dict(os.environ, PYTHONPATH=packages), cwd=self.root)
        self.assertIn("['conv1', 'ip1'] (2, 5)", output)

    def test_debian_package_declares_its_dependencies(self):
        out = os.path.join(self.root, "package")
        run(["cpack", "-G", "DEB", "-B", out], cwd=BUILD)
        (deb,) = [f for f in os.listdir(out) if f.endswith(".deb")]
        info = run(["dpkg-deb", "--field", os.path.join(out, deb), "Depends"])
        for needed in ("libdnnl2", "libprotobuf32", "liblmdb0", "libopenblas0", "libhdf5",
                       "libturbojpeg0", "libcairo2", "libonnx1", "libavcodec59", "libavformat59",
                       "python3-numpy", "python3 (>= 3."):
            self.assertIn(needed, info)
        contents = run(["dpkg-deb", "--contents", os.path.join(out, deb)])
        for path in ("./usr/bin/dtrain", "/dist-packages/dtrain/_dtrain.", "/dtrain/net.py",
                     "./usr/share/doc/dtrain/README.md"):
            self.assertIn(path, contents)


if __name__ == "__main__":
    unittest.main()
