-- go-tpc v1.0.12's PostgreSQL DDL (tpcc/ddl.go, driver == "postgres") WITHOUT any key or
-- index: bench/lib/tpcc.py loads the CSVs that `go-tpc tpcc prepare --output-type csv`
-- writes, then creates the indexes listed in bench/lib/tpcc.py (INDEXES) with btree or learned.
-- Column order must match go-tpc's CSV output (it follows this DDL).
CREATE TABLE warehouse (
	w_id INT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20),
	w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4, 4), w_ytd DECIMAL(12, 2));
CREATE TABLE district (
	d_id INT NOT NULL, d_w_id INT NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20),
	d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4, 4),
	d_ytd DECIMAL(12, 2), d_next_o_id INT);
CREATE TABLE customer (
	c_id INT NOT NULL, c_d_id INT NOT NULL, c_w_id INT NOT NULL, c_first VARCHAR(16), c_middle CHAR(2),
	c_last VARCHAR(16), c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20),
	c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), c_since TIMESTAMP, c_credit CHAR(2),
	c_credit_lim DECIMAL(12, 2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2),
	c_ytd_payment DECIMAL(12,2), c_payment_cnt INT, c_delivery_cnt INT, c_data VARCHAR(500));
CREATE TABLE history (
	h_c_id INT NOT NULL, h_c_d_id INT NOT NULL, h_c_w_id INT NOT NULL, h_d_id INT NOT NULL,
	h_w_id INT NOT NULL, h_date TIMESTAMP, h_amount DECIMAL(6, 2), h_data VARCHAR(24));
CREATE TABLE new_order (no_o_id INT NOT NULL, no_d_id INT NOT NULL, no_w_id INT NOT NULL);
CREATE TABLE orders (
	o_id INT NOT NULL, o_d_id INT NOT NULL, o_w_id INT NOT NULL, o_c_id INT, o_entry_d TIMESTAMP,
	o_carrier_id INT, o_ol_cnt INT, o_all_local INT);
CREATE TABLE order_line (
	ol_o_id INT NOT NULL, ol_d_id INT NOT NULL, ol_w_id INT NOT NULL, ol_number INT NOT NULL,
	ol_i_id INT NOT NULL, ol_supply_w_id INT, ol_delivery_d TIMESTAMP, ol_quantity INT,
	ol_amount DECIMAL(6, 2), ol_dist_info CHAR(24));
CREATE TABLE stock (
	s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, s_dist_01 CHAR(24), s_dist_02 CHAR(24),
	s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24),
	s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INT, s_order_cnt INT,
	s_remote_cnt INT, s_data VARCHAR(50));
CREATE TABLE item (
	i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5, 2), i_data VARCHAR(50));
