{
  "targets": [
    {
      "target_name": "stat_batch",
      "sources": ["native/stat_batch.c"],
      "cflags": ["-O2"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
