-- Reference data loaded from files (CPV labels, NUTS names). Unknown codes simply have no row: labels are
-- then served as null, never invented.
CREATE TABLE cpv_codes (
  code        text PRIMARY KEY CHECK (code ~ '^[0-9]{8}$'),
  check_digit smallint CHECK (check_digit BETWEEN 0 AND 9),
  label_en    text,
  label_es    text
);

CREATE TABLE nuts_codes (
  code         text PRIMARY KEY CHECK (code ~ '^[A-Z]{2}[A-Z0-9]{0,3}$'),
  level        smallint NOT NULL CHECK (level BETWEEN 0 AND 3),
  name         text NOT NULL,
  name_national text,
  country_code text NOT NULL,
  parent_code  text
);
