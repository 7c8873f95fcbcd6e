// Package redact removes secrets from text before sharebench writes it
// anywhere: the console, logs, run.json, campaign.json, summary.md,
// report.html and metric labels. It knows three shapes of secret: the
// userinfo of a URL (http://user:secret@host), secret-looking query
// parameters (?token=…, &password=…) and settings whose key names a secret
// (sasl.jaas.config=…, "ssl.keystore.password": "…"; the value is replaced,
// the key kept). redact imports nothing of sharebench, so every package may
// use it.
package redact
