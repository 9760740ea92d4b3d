// Original file: ../../proto/slipway/agent/v1/build.proto


export interface BuildVariable {
  'key'?: (string);
  'value'?: (string);
  'secret'?: (boolean);
}

export interface BuildVariable__Output {
  'key': (string);
  'value': (string);
  'secret': (boolean);
}
