"""Writers of certificates, one module per claim family, named like the trusted checker module that reads it."""
