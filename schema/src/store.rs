pub struct Store;
