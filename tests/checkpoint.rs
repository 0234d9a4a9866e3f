//! The checkpoint codec: TensorFlow 2.21's files read (tests/reference/data/checkpoint_tf),
//! round trips, and truncated or corrupted files refused without a panic.
use rustape::checkpoint::{BundleReader, BundleWriter, Payload, StoredTensor, OBJECT_GRAPH_KEY};

const DIR: &str = "tests/reference/data/checkpoint_tf";

fn files(name: &str) -> (Vec<u8>, Vec<u8>) {
    let index = std::fs::read(format!("{DIR}/{name}.index")).unwrap();
    let data = std::fs::read(format!("{DIR}/{name}.data-00000-of-00001")).unwrap();
    (index, data)
}

#[test]
fn reads_tensorflow_files() {
    let r = BundleReader::open(format!("{DIR}/keras-1")).unwrap();
    let keys: Vec<&str> = r.keys().collect();
    assert!(keys.contains(&OBJECT_GRAPH_KEY));
    let t = r
        .read("optimizer/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE")
        .unwrap();
    assert_eq!((t.dtype, t.shape.clone()), (1, vec![3, 4]));
    let counter = r.read("save_counter/.ATTRIBUTES/VARIABLE_VALUE").unwrap();
    assert_eq!(counter.data, Payload::Bytes(1i64.to_le_bytes().to_vec()));
    assert!(matches!(r.read(OBJECT_GRAPH_KEY).unwrap().data, Payload::Strings(s) if s.len() == 1));
}

#[test]
fn round_trips_every_tensor() {
    let (index, data) = files("module");
    let r = BundleReader::from_parts(&index, vec![data]).unwrap();
    let mut w = BundleWriter::new();
    let all: Vec<(String, StoredTensor)> = r
        .keys()
        .map(|k| (k.to_owned(), r.read(k).unwrap()))
        .collect();
    for (k, t) in &all {
        w.add(k, t).unwrap();
    }
    let (index2, data2) = w.finish().unwrap();
    let back = BundleReader::from_parts(&index2, vec![data2]).unwrap();
    for (k, t) in &all {
        assert_eq!(&back.read(k).unwrap(), t);
    }
}

#[test]
fn refuses_bad_input_without_panicking() {
    let (index, data) = files("keras-1");
    let good = BundleReader::from_parts(&index, vec![data.clone()]).unwrap();
    let keys: Vec<String> = good.keys().map(str::to_owned).collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for which in 0..2 {
        let original = if which == 0 { &index } else { &data };
        let mut cases: Vec<Vec<u8>> = (0..original.len())
            .step_by(7)
            .map(|n| original[..n].to_vec())
            .collect();
        for _ in 0..400 {
            let mut b = original.clone();
            let i = (next() % b.len() as u64) as usize;
            b[i] ^= 1 << (next() % 8);
            cases.push(b);
        }
        for case in cases {
            let (i, d) = if which == 0 {
                (case, data.clone())
            } else {
                (index.clone(), case)
            };
            if let Ok(r) = BundleReader::from_parts(&i, vec![d]) {
                for k in &keys {
                    // Either refused or the original value: never silently different.
                    if let Ok(t) = r.read(k) {
                        assert_eq!(t, good.read(k).unwrap(), "{k}");
                    }
                }
            }
        }
    }
}

#[test]
fn writer_checks_sizes() {
    let mut w = BundleWriter::new();
    let bad = StoredTensor {
        dtype: 1,
        shape: vec![3],
        data: Payload::Bytes(vec![0; 8]),
    };
    assert!(w.add("x", &bad).is_err());
    assert!(w.add("", &bad).is_err());
}
