"""The pit staff's and auditors' screens, beyond the admin."""
