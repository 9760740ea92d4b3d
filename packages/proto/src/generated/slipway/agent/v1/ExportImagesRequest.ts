// Original file: ../../proto/slipway/agent/v1/moves.proto


export interface ExportImagesRequest {
  'imageRefs'?: (string)[];
}

export interface ExportImagesRequest__Output {
  'imageRefs': (string)[];
}
