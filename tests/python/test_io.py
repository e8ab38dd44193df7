"""dtrain.io: mean files (against `dtrain compute-mean`), Datum records, LMDBs, images, and
the Transformer."""

import struct
import unittest
import zlib

import numpy as np

import dtrain
from dtrain_testing import PatchNetCase, run_dtrain


def png_bytes(rgb):
    """An 8-bit RGB PNG of an H x W x 3 uint8 array (filter 0 on every row)."""
    height, width, _ = rgb.shape

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    rows = b"".join(b"\x00" + rgb[y].tobytes() for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                              0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


class Io(PatchNetCase):

    def test_mean_file_of_the_command_is_the_mean_of_the_records(self):
        mean_path = self.path("mean.binaryproto")
        run_dtrain("compute-mean", self.test_lmdb, mean_path)
        mean = dtrain.io.load_mean(mean_path)
        self.assertEqual(mean.shape, (1, 12, 12))
        np.testing.assert_allclose(mean, self.test_images.astype(np.float64).mean(axis=0),
                                   rtol=1e-5)
        # And written from Python, read back exactly.
        values = np.random.RandomState(5).uniform(size=(1, 3, 4, 5)).astype(np.float32)
        dtrain.io.write_blobproto(self.path("mine.binaryproto"), values)
        np.testing.assert_array_equal(dtrain.io.read_blobproto(self.path("mine.binaryproto")),
                                      values)

    def test_datum_records(self):
        pixels = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
        array, label = dtrain.io.datum_to_array(dtrain.io.array_to_datum(pixels, 7))
        self.assertEqual((array.dtype, label), (np.uint8, 7))
        np.testing.assert_array_equal(array, pixels)
        floats = np.linspace(-1, 1, 12).reshape(1, 3, 4)
        array, label = dtrain.io.datum_to_array(dtrain.io.array_to_datum(floats))
        self.assertEqual((array.dtype, label), (np.float32, 0))
        np.testing.assert_array_equal(array, floats.astype(np.float32))
        with self.assertRaisesRegex(dtrain.Error, "the record"):
            dtrain.io.datum_to_array(b"\xff\xff not a datum")
        with self.assertRaises(ValueError):
            dtrain.io.array_to_datum(np.zeros(5))

    def test_lmdb_records_in_key_order(self):
        records = dtrain.io.lmdb_records(self.test_lmdb, limit=3)
        self.assertEqual([key for key, _ in records], [b"00000000", b"00000001", b"00000002"])
        image, label = dtrain.io.datum_to_array(records[2][1])
        np.testing.assert_array_equal(image, self.test_images[2])
        self.assertEqual(label, self.test_labels[2])
        with self.assertRaisesRegex(dtrain.Error, "test_lmdb"):
            dtrain.io.write_lmdb(self.test_lmdb, [])
        with self.assertRaisesRegex(dtrain.Error, "missing_lmdb"):
            dtrain.io.lmdb_records(self.path("missing_lmdb"))

    def test_images(self):
        rgb = np.random.RandomState(6).randint(0, 256, size=(5, 7, 3)).astype(np.uint8)
        path = self.write("image.png", "")
        with open(path, "wb") as f:
            f.write(png_bytes(rgb))
        bgr = dtrain.io.decode_image(png_bytes(rgb))
        np.testing.assert_array_equal(bgr, rgb[:, :, ::-1].transpose(2, 0, 1))
        image = dtrain.io.load_image(path)
        self.assertEqual(image.shape, (5, 7, 3))
        np.testing.assert_allclose(image, rgb / 255.0, atol=1e-7)
        self.assertEqual(dtrain.io.load_image(path, color=False).shape, (5, 7, 1))
        resized = dtrain.io.resize_image(image, (10, 14))
        self.assertEqual(resized.shape, (10, 14, 3))
        np.testing.assert_allclose(dtrain.io.resize_image(image, (5, 7)), image, atol=1e-7)
        with self.assertRaisesRegex(dtrain.Error, "image"):
            dtrain.io.decode_image(b"GIF89a not an image we read")

    def test_transformer_as_pycaffe_prepares_an_image(self):
        transformer = dtrain.io.Transformer({"data": (1, 3, 5, 7)})
        transformer.set_transpose("data", (2, 0, 1))
        transformer.set_channel_swap("data", (2, 1, 0))
        transformer.set_raw_scale("data", 255)
        transformer.set_mean("data", np.array([104.0, 117.0, 123.0]))
        image = np.random.RandomState(7).uniform(size=(5, 7, 3)).astype(np.float32)
        x = transformer.preprocess("data", image)
        self.assertEqual(x.shape, (3, 5, 7))
        np.testing.assert_allclose(x[0], image[:, :, 2] * 255 - 104, rtol=1e-5)
        np.testing.assert_allclose(transformer.deprocess("data", x), image, atol=1e-5)
        with self.assertRaisesRegex(ValueError, "resize"):
            transformer.preprocess("data", np.zeros((6, 7, 3)))
        with self.assertRaises(KeyError):
            transformer.set_mean("label", [0])


if __name__ == "__main__":
    unittest.main()
